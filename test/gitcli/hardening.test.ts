// The hardened git runner: static pins and per-driver neutralisation, each checked against a repository whose own
// configuration names a program that writes a marker. A pin that does not hold shows as a marker line.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { neutralised, programOverrides } from '../../src/gitcli/repo-config.js';
import { runGit } from '../../src/gitcli/run.js';
import { gitIn, makeRepo, type GitDir } from '../support/gitdir.js';
import { markerScript, markerText } from '../support/hostile-config.js';

describe('programOverrides', () => {
  it('overrides every program-valued per-driver key, keeping subsections exact (also with "=" in them)', () => {
    const listing = [
      'core.bare\nfalse',
      'filter.A=b.smudge\n/x',
      'filter.lfs.process\n/x',
      'filter.lfs.required\ntrue',
      'diff.ev.textconv\n/x',
      'diff.ev.command\n/x',
      'merge.ev.driver\n/x',
      'credential.https://example.com.helper\n/x',
      'pager.log\n/x',
      'gpg.ssh.program\n/x',
      'user.name\nfilter.x.smudge',
      '',
    ].join('\0');
    const env = programOverrides(listing);
    const pairs = Array.from({ length: Number(env['GIT_CONFIG_COUNT']) }, (_, i) => [
      env[`GIT_CONFIG_KEY_${i}`],
      env[`GIT_CONFIG_VALUE_${i}`],
    ]);
    expect(Object.fromEntries(pairs)).toEqual({
      'filter.A=b.smudge': '',
      'filter.lfs.process': '',
      'filter.lfs.required': 'false',
      'diff.ev.textconv': '',
      'diff.ev.command': '',
      'merge.ev.driver': '',
      'credential.https://example.com.helper': '',
      'pager.log': 'false',
      'gpg.ssh.program': '',
    });
    expect(programOverrides('core.bare\nfalse\0')).toEqual({});
  });
});

describe('against a hostile repository', () => {
  let repo: GitDir;
  let marker: string;
  beforeAll(async () => {
    repo = await makeRepo([
      { message: 'one', files: { 'a.txt': 'a\n', '.gitattributes': 'a.txt filter=ev diff=ev\n' } },
      { message: 'two', files: { 'a.txt': 'b\n' } },
    ]);
    const m = await markerScript(join(repo.dir, '..'));
    marker = m.marker;
    for (const [k, v] of [
      ['filter.ev.smudge', m.script],
      ['filter.ev.clean', m.script],
      ['filter.ev.required', 'true'],
      ['diff.ev.textconv', m.script],
      ['diff.ev.command', m.script],
      ['diff.external', m.script],
      ['core.fsmonitor', m.script],
      ['core.hooksPath', join(repo.dir, 'hooks')],
    ] as const)
      await gitIn(repo.dir, ['config', k, v]);
  });
  afterAll(() => repo?.cleanup());
  const call = () => ({ cwd: repo.dir });

  it('a porcelain diff with external drivers fails closed instead of running them (empty is not "none")', async () => {
    const run = await runGit(['diff', 'HEAD~1', 'HEAD'], (await neutralised(call()))!);
    expect(run.code).not.toBe(0);
    expect(await markerText(marker)).toBe('');
    // Plumbing-style flags need no neutralisation at all.
    const plain = await runGit(['diff', '--no-ext-diff', '--no-textconv', 'HEAD~1', 'HEAD'], call());
    expect(plain.code).toBe(0);
    expect(plain.stdout.toString()).toContain('+b');
    expect(await markerText(marker)).toBe('');
  });

  it('a working-tree checkout and refresh run the smudge and clean filters only when not neutralised', async () => {
    const safe = await neutralised(call());
    expect(safe).not.toBeNull();
    expect((await runGit(['read-tree', '-u', '-m', 'HEAD', 'HEAD~1'], safe!)).code).toBe(0);
    await writeFile(join(repo.dir, 'a.txt'), 'a\n'); // same bytes, new stat: a refresh must read it
    expect((await runGit(['update-index', '-q', '--refresh'], (await neutralised(call()))!)).code).toBe(0);
    expect((await runGit(['read-tree', '-u', '-m', 'HEAD~1', 'HEAD'], (await neutralised(call()))!)).code).toBe(0);
    expect(await markerText(marker)).toBe('');
    // The same command without the per-driver overrides does run the filter: the check above can fail.
    await runGit(['read-tree', '-u', '-m', 'HEAD', 'HEAD~1'], call());
    expect(await markerText(marker)).toContain('ran:');
  });
});
