// Issue 9 item 4: a write inside `write` deleted files outside it on the GitHub upstream. Writing a file where a
// directory exists (`docs/api` over `docs/api/*.md`), or below a path that is a file, made the Git Data API replace
// one with the other, and the push reported success. Now, on both upstreams, the change between the base tree and
// the new tree is computed before the ref moves and every changed path must have been named by the request (so
// judged writable and unprotected); a collision answers with one message, whatever is in the way.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPS_TOKEN, type Agent } from '../support/server.js';
import { serveBoth, UPSTREAM_KINDS, type Served } from '../support/both-upstreams.js';

const FILES = {
  'docs/api/a.md': 'a\n',
  'docs/api/b.md': 'b\n',
  'docs/readme.md': 'r\n',
  'docs/cfg/.env': 'SECRET=1\n',
  'app/.env': 'SECRET=2\n',
  'app/main.ts': 'm\n',
  'blind/dir/f.txt': 'hidden but writable\n',
  '.github/workflows/ci.yml': 'on: push\n',
  CODEOWNERS: '* @owner\n',
  'docs/.gitattributes': '*.md text\n',
};

describe.each(UPSTREAM_KINDS)('%s upstream', (kind) => {
  let s: Served;
  let agent: Agent;
  beforeAll(async () => {
    s = await serveBoth(kind, [{ message: 'init', files: FILES }]);
    await s.srv.perimeter({
      id: 'p',
      repo: s.repo,
      read: ['docs/**', 'app/**', '.github/**', 'CODEOWNERS'],
      write: ['docs/**', 'app/**', 'blind/**', '.github/**', 'CODEOWNERS'],
    });
    agent = await s.srv.connect('/mcp/p');
  }, 60_000);
  afterAll(async () => {
    await agent?.close();
    await s?.close();
  });

  /** Pushes one file and expects a refusal that moved nothing and removed nothing; returns the text. */
  const refused = async (path: string): Promise<string> => {
    const before = await s.head();
    const r = await agent.call('push_files', { message: 'x', files: [{ path, content: 'over\n' }] });
    expect(r.isError, `${path}: ${r.text}`).toBe(true);
    expect(await s.head()).toBe(before);
    expect((await s.files()).sort()).toEqual(Object.keys(FILES).sort());
    return r.text.split(path).join('P');
  };

  it('refuses a file written over a directory, visible or holding only hidden files', async () => {
    const visible = await refused('docs/api');
    const onlyPrivate = await refused('docs/cfg');
    const blind = await refused('blind/dir');
    expect(new Set([visible, onlyPrivate, blind]).size).toBe(1);
    expect(visible).toMatch(/a file and a directory cannot share a path/);
    expect(visible).not.toMatch(/\.env|a\.md|f\.txt/);
  });

  it('refuses a file written below a file, and below a protected or private file whether or not it exists', async () => {
    const belowFile = await refused('docs/readme.md/x');
    const belowOwners = await refused('docs/.gitattributes/x');
    expect(await refused('CODEOWNERS/x')).toMatch(/outside this perimeter's write scope/);
    const belowEnv = await refused('app/.env/x');
    const belowMissingEnv = await refused('docs/.env/x');
    const belowWorkflow = await refused('.github/workflows/ci.yml/deep/x');
    expect([belowOwners, belowEnv, belowMissingEnv]).toEqual([belowFile, belowFile, belowFile]);
    expect(belowWorkflow).toMatch(/protected/);
  });

  it('holds the operator surface to the same rule: it never removes a path it did not name', async () => {
    const root = await s.srv.connect('/mcp/root', 'legacy', { authorization: `Bearer ${OPS_TOKEN}` });
    try {
      const before = await s.head();
      const r = await root.call('push_files', {
        repo: s.repo,
        ref: 'main',
        message: 'x',
        files: [{ path: 'docs/api', content: 'over\n' }],
      });
      expect(r.isError, r.text).toBe(true);
      expect(r.text).toMatch(/a file and a directory cannot share a path/);
      expect(await s.head()).toBe(before);
      expect((await s.files()).sort()).toEqual(Object.keys(FILES).sort());
    } finally {
      await root.close();
    }
  });

  it('still writes ordinary files, and turns a directory into a file when the request names every file in it', async () => {
    const ok = await agent.call('push_files', { message: 'new', files: [{ path: 'docs/new.md', content: 'n\n' }] });
    expect(ok.isError, ok.text).toBeFalsy();
    const conv = await agent.call('push_files', {
      message: 'flatten',
      files: [{ path: 'docs/api', content: 'api\n' }],
      delete: ['docs/api/a.md', 'docs/api/b.md'],
    });
    expect(conv.isError, conv.text).toBeFalsy();
    const files = await s.files();
    expect(files).toContain('docs/api');
    expect(files.filter((f) => f.startsWith('docs/api/'))).toEqual([]);
    expect(files).toContain('CODEOWNERS');
    expect(files).toContain('.github/workflows/ci.yml');
  });
});
