// Issue 19, class 6 on the workspace listings: scope_summary's 100-commit churn window included commits touching only
// hidden files, and status and integrity counted hidden records toward their output caps (`truncated` then told that
// hidden files changed). Windows and caps now count visible records only: each pair below differs only in hidden
// files, and every answer must be the same.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gitIn } from '../support/gitdir.js';
import { wsTwins, type WsTwins } from '../support/ws-twins.js';

let history: WsTwins;
let caps: WsTwins;

beforeAll(async () => {
  // 1. Three commits touching readable files, then (in one twin) 120 commits touching only a hidden one.
  history = await wsTwins(
    [
      { message: 'init', files: { 'app/a.ts': 'a\n', 'secret/x': '0\n' } },
      { message: 'app 1', files: { 'app/a.ts': 'a1\n' } },
      { message: 'app 2', files: { 'app/b.ts': 'b\n' } },
    ],
    { read: ['app/**'] },
    async (repo, hidden) => {
      if (!hidden) return;
      for (let i = 1; i <= 120; i++) {
        await writeFile(join(repo.dir, 'secret/x'), `${i}\n`);
        await gitIn(repo.dir, ['commit', '-q', '-a', '-m', `hidden ${i}`]);
      }
    },
  );
  // 2. A small output cap (4 KiB) and, in one twin, hundreds of untracked and modified hidden files.
  caps = await wsTwins(
    [
      {
        message: 'init',
        files: {
          'app/a.ts': 'a\n',
          ...Object.fromEntries(Array.from({ length: 150 }, (_, i) => [`secret/tracked-${i}.txt`, 'x\n'])),
        },
      },
    ],
    { read: ['app/**'] },
    async (repo, hidden) => {
      await writeFile(join(repo.dir, 'app/a.ts'), 'a2\n');
      await writeFile(join(repo.dir, 'app/new.ts'), 'new\n');
      if (!hidden) return;
      await mkdir(join(repo.dir, 'secret/untracked'), { recursive: true });
      for (let i = 0; i < 150; i++) {
        await writeFile(join(repo.dir, `secret/untracked/file-with-a-long-name-${i}.txt`), 'CANARY\n');
        await writeFile(join(repo.dir, `secret/tracked-${i}.txt`), 'changed\n');
      }
    },
    { maxBytes: 4096 },
  );
}, 120_000);

afterAll(async () => {
  await history?.close();
  await caps?.close();
});

describe('windows count visible commits only', () => {
  it('scope_summary churn: hidden-only commits never use up the window', async () => {
    for (const args of [{}, { path: 'app' }]) {
      const [h, n] = await history.both('scope_summary', args);
      expect(JSON.parse(n).structured.churn).toMatchObject({ commits: 3 });
      expect(h).toBe(n);
    }
  });
});

describe('caps count visible records only', () => {
  for (const tool of [
    'workspace_status',
    'workspace_brief',
    'integrity_check',
    'scope_summary',
    'workspace_diff',
    'submodule_status',
  ]) {
    it(`${tool}: hidden records neither truncate nor move a count`, async () => {
      const [h, n] = await caps.both(tool, {});
      expect(JSON.parse(n).isError, n).toBe(false);
      expect(h).toBe(n);
    });
  }
});
