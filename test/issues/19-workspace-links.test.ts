// Issue 19, class 5 on the workspace tools: a symlink whose target is hidden is absent from get_tree and get_file,
// but workspace_status, the brief and scope_summary listed or counted it. One predicate (linkServable) now judges
// every listing, on the target text git would store (readlink for a link on disk, never followed).
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { wsTwins, type WsTwins } from '../support/ws-twins.js';

let tw: WsTwins;
const TOOLS: [string, Record<string, unknown>][] = [
  ['workspace_status', {}],
  ['workspace_brief', {}],
  ['scope_summary', {}],
  ['scope_summary', { path: 'app/links' }],
  ['scope_summary', { path: 'app/ldir' }],
  ['integrity_check', {}],
  ['workspace_diff', {}],
  ['workspace_diff', { staged: true }],
  ['workspace_diff', { against: 'head' }],
];

beforeAll(async () => {
  tw = await wsTwins(
    (hidden) => [
      {
        message: 'init',
        files: {
          'app/a.ts': 'a\n',
          'secret/k.txt': 'key\n',
          ...(hidden
            ? { 'app/cl': { symlink: '../secret/k.txt' }, 'app/ldir/l': { symlink: '../../secret/k.txt' } }
            : {}),
        },
      },
    ],
    { read: ['app/**'] },
    async (repo, hidden) => {
      await writeFile(join(repo.dir, 'app/a.ts'), 'a2\n');
      if (!hidden) return;
      // Untracked, staged and retargeted links, every one pointing at a hidden file.
      await mkdir(join(repo.dir, 'app/links'));
      await symlink('../../secret/k.txt', join(repo.dir, 'app/links/u'));
      await symlink('../secret/k.txt', join(repo.dir, 'app/sl'));
      await repo.git('add', 'app/sl');
      await repo.git('rm', '-q', '--cached', 'app/cl');
      await symlink('../secret/other.txt', join(repo.dir, 'app/cl2'));
    },
  );
}, 60_000);

afterAll(async () => {
  await tw?.close();
});

describe('a link to a hidden target is absent from every workspace listing', () => {
  it('get_tree agrees (the scenario hides the links there)', async () => {
    const [h, n] = await tw.both('get_tree', { path: 'app', recursive: true });
    expect(h).toBe(n);
  });

  for (const [tool, args] of TOOLS) {
    it(`${tool} ${JSON.stringify(args)}`, async () => {
      const [h, n] = await tw.both(tool, args);
      expect(h).toBe(n);
    });
  }

  it('a link to a readable file is still listed', async () => {
    await symlink('a.ts', join(tw.withHidden.repo.dir, 'app/ok'));
    try {
      const r = await tw.withHidden.agent.call('workspace_status', {});
      expect(r.structured.untracked).toContain('app/ok');
    } finally {
      await tw.withHidden.repo.git('clean', '-q', '-f', '--', 'app/ok');
    }
  });
});
