import { describe, expect, it } from 'vitest';
import { isLocalRepo, parseConfig } from '../../src/cli/config.js';

describe('boot config', () => {
  it('parses perimeters and resolves local repos against the config folder', () => {
    const out = parseConfig(
      `perimeters:\n  infra:\n    repo: acme/platform\n    read: ["infra/**"]\n    write: ["infra/aws/**"]\n  docs:\n    repo: ./repos/docs\n    read: ["**/*.md"]\n    branches: [main, draft]\n`,
      '/etc/gb',
      '/home/op',
    );
    expect(out.errors).toEqual([]);
    expect(out.config?.perimeters).toEqual([
      { id: 'infra', repo: 'acme/platform', read: ['infra/**'], write: ['infra/aws/**'] },
      { id: 'docs', repo: '/etc/gb/repos/docs', read: ['**/*.md'], write: [], branches: ['main', 'draft'] },
    ]);
  });

  it('names the key of every error, and loads nothing', () => {
    const out = parseConfig(`perimeters:\n  Bad_Id:\n    repo: a/b\n  x:\n    repo: a/b\n    read: ["../etc/**"]\n    colour: blue\n`, '/c', '/h');
    expect(out.config).toBeUndefined();
    const text = out.errors.join('\n');
    expect(text).toMatch(/perimeters\.Bad_Id\.id/);
    expect(text).toMatch(/perimeters\.x\.read\.0/);
    expect(text).toMatch(/colour/);
  });

  it('refuses the reserved id and reports YAML syntax errors', () => {
    expect(parseConfig(`perimeters:\n  root:\n    repo: a/b\n`, '/c', '/h').errors.join()).toMatch(/reserved/);
    expect(parseConfig(`perimeters: [`, '/c', '/h').errors.join()).toMatch(/YAML/);
    expect(parseConfig(`token: abc\n`, '/c', '/h').errors.join()).toMatch(/token/);
  });

  it('tells local paths from owner/name', () => {
    expect(isLocalRepo('/srv/repo')).toBe(true);
    expect(isLocalRepo('./repo')).toBe(true);
    expect(isLocalRepo('~/repo')).toBe(true);
    expect(isLocalRepo('acme/platform')).toBe(false);
  });
});
