// Issue 13: status and diff must never rewrite `.git/index`. On git 2.39 porcelain `git diff` (and `git status` without
// optional locks off) refresh a stale index and write it back; an agent reading its working tree must not change
// another person's index under them. Every port operation runs on a stale index (every tracked file touched), in the
// main and in a linked worktree, and the index's bytes and mtime stay as they were. The last test shows the fixture
// really is stale: porcelain `git diff` does rewrite it.
import { readFile, stat, utimes } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createLocalWorkspace } from '../../src/workspace/localfs/index.js';
import type { WorkTree } from '../../src/workspace/types.js';
import { gitIn } from '../support/gitdir.js';
import { makeDirtyRepo, type DirtyRepo } from '../workspace/fixture.js';

let repo: DirtyRepo;

interface IndexState {
  bytes: Buffer;
  mtimeMs: number;
}

async function indexState(path: string): Promise<IndexState> {
  return { bytes: await readFile(path), mtimeMs: (await stat(path)).mtimeMs };
}

/** Every tracked file gets a new mtime, so a refresh would have to re-read (and would rewrite) each index entry. */
async function touchTracked(dir: string): Promise<void> {
  const later = new Date(Date.now() + 60_000);
  for (const f of (await gitIn(dir, ['ls-files', '-z'])).split('\0'))
    if (f) await utimes(join(dir, f), later, later).catch(() => undefined);
}

async function everything(wt: WorkTree, head: string): Promise<void> {
  const results = [
    await wt.status(),
    await wt.diff({ against: 'index', staged: false }),
    await wt.diff({ against: 'head', staged: false }),
    await wt.diff({ against: 'head', staged: true }),
    await wt.diff({ against: { commit: head }, staged: false, paths: ['src'] }),
    await wt.head(),
    await wt.upstreamCounts(['']),
    await wt.operation(),
    await wt.mergePreflight('other'),
    await wt.submodules(),
    await wt.integrity(),
    await wt.readFile('README.md', 1024),
    await wt.recentChurn('', 5),
  ];
  for (const r of results) expect(r.ok, JSON.stringify(r)).toBe(true);
  // Only meaningful where a conflict exists; either answer must leave the index alone.
  await wt.conflictSides('conf.txt', 1024);
}

beforeAll(async () => {
  repo = await makeDirtyRepo();
}, 60_000);

afterAll(async () => {
  await repo?.cleanup();
});

it('leaves a stale index byte for byte and mtime for mtime, in the main and a linked worktree', async () => {
  const ws = createLocalWorkspace();
  await touchTracked(repo.dir);
  await touchTracked(repo.featDir);
  const mainIndex = join(repo.dir, '.git/index');
  const featIndex = join(repo.dir, '.git/worktrees/feat-wt/index');
  const before = [await indexState(mainIndex), await indexState(featIndex)];
  const main = await ws.open(repo.dir, 'main');
  const feat = await ws.open(repo.dir, 'feat');
  if (!main.ok || !main.value || !feat.ok || !feat.value) throw new Error('both worktrees open');
  await ws.worktrees(repo.dir);
  await everything(main.value, repo.head);
  await everything(feat.value, repo.head);
  expect(await indexState(mainIndex)).toEqual(before[0]);
  expect(await indexState(featIndex)).toEqual(before[1]);
  // A second round on the same (still stale) index: nothing accumulates either.
  await everything(main.value, repo.head);
  expect(await indexState(mainIndex)).toEqual(before[0]);
});

it('is a real test: porcelain git diff does rewrite this stale index', async () => {
  const featIndex = join(repo.dir, '.git/worktrees/feat-wt/index');
  await touchTracked(repo.featDir);
  const before = await indexState(featIndex);
  await gitIn(repo.featDir, ['diff', '--stat']);
  expect((await indexState(featIndex)).mtimeMs).not.toBe(before.mtimeMs);
});
