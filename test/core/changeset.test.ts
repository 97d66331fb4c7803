import { describe, expect, it } from 'vitest';
import { bindAgent, judgeChange, materialize, structuralRefusal, type AgentBinding } from '../../src/core/index.js';

function binding(write: string[], read: string[] = ['**']): AgentBinding {
  const b = bindAgent(materialize({ id: 'p', repo: '/r', read, write }, 'main'), 'main');
  if (!b.ok) throw new Error('bind');
  return b.value;
}

describe('judgeChange', () => {
  const b = binding(['docs/**']);
  it('allows a change that is exactly what the request named', () => {
    expect(judgeChange({ writes: ['docs/a.md'], deletes: ['docs/b.md'] }, ['docs/a.md'], b)).toEqual({ kind: 'allow' });
    expect(judgeChange({ writes: ['docs/a.md'], deletes: [] }, [], b)).toEqual({ kind: 'allow' });
  });
  it('refuses paths the request did not name, naming only the requested path', () => {
    const j = judgeChange({ writes: ['docs/api'], deletes: [] }, ['docs/api', 'docs/api/secret.md'], b);
    expect(j.kind).toBe('refuse');
    if (j.kind === 'refuse') {
      expect(j.message).toContain('"docs/api"');
      expect(j.message).not.toContain('secret');
    }
  });
  it('refuses a named path outside write and a protected one (defence in depth)', () => {
    expect(judgeChange({ writes: ['src/x'], deletes: [] }, ['src/x'], b).kind).toBe('refuse');
    expect(judgeChange({ writes: ['docs/.env'], deletes: [] }, ['docs/.env'], b).kind).toBe('refuse');
  });
});

describe('structuralRefusal', () => {
  const b = binding(['**']);
  it('refuses writes below protected, private or metadata paths whatever exists', () => {
    for (const p of ['CODEOWNERS/x', 'app/.env/x', 'app/.ENV/deep/x', 'a/.gitattributes/x', 'id_rsa/x']) {
      expect(structuralRefusal([p], b), p).toMatch(/a file and a directory cannot share a path/);
    }
  });
  it('leaves ordinary paths and paths inside protected directories to the other checks', () => {
    for (const p of ['docs/a.md', '.github/workflows/ci.yml', 'a/b/c/d.ts', 'envs/x'])
      expect(structuralRefusal([p], b), p).toBeUndefined();
  });
});
