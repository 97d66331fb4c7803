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
    const out = parseConfig(
      `perimeters:\n  Bad_Id:\n    repo: a/b\n  x:\n    repo: a/b\n    read: ["../etc/**"]\n    colour: blue\n`,
      '/c',
      '/h',
    );
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

  it('warns, without refusing, on an empty config, an unclosed glob, a blind write and a root-only tool', () => {
    expect(parseConfig('', '/c', '/h')).toMatchObject({
      errors: [],
      warnings: [expect.stringMatching(/defines no perimeters/)],
    });
    const out = parseConfig(
      `perimeters:\n  x:\n    repo: a/b\n    read: ["docs/**", "a/{b"]\n    write: ["**"]\n    tools: [get_file, list_branches]\n`,
      '/c',
      '/h',
    );
    expect(out.errors).toEqual([]);
    expect(out.config?.perimeters).toHaveLength(1);
    expect(out.warnings.join('\n')).toMatch(/read glob "a\/\{b" has an unclosed "\{"/);
    expect(out.warnings.join('\n')).toMatch(/write "\*\*" reaches outside read/);
    expect(out.warnings.join('\n')).toMatch(/tool "list_branches" is never served to agents/);
    const fine = parseConfig(
      `perimeters:\n  x:\n    repo: a/b\n    read: ["docs/**"]\n    write: ["docs/{a,b}/*.md", "docs/[ab].md"]\n`,
      '/c',
      '/h',
    );
    expect(fine.warnings).toEqual([]);
  });

  it('says "(top level)" for a top-level shape error, never "(root)" (the reserved perimeter id)', () => {
    const text = parseConfig('- just\n- a list\n', '/c', '/h').errors.join();
    expect(text).toContain('(top level)');
    expect(text).not.toContain('(root)');
  });
});
