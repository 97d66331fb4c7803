// Issue 24: get_commit's reachability check (`merge-base --is-ancestor`) is asked once per (commit, head) pair and
// kept per repository; its answers stay git's own — false for a commit the head does not reach, true for one it
// does, a new head asked afresh — and nothing is kept or reused while a shallow or grafts file changes the graph.
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnCounts } from '../../src/gitcli/spawns.js';
import { createLocalGitUpstream } from '../../src/upstream/localgit/index.js';
import type { Upstream } from '../../src/upstream/types.js';
import { makeRepo, type GitDir } from '../support/gitdir.js';

/** The merge-base processes `fn` started, and its value. */
async function counted<T>(fn: () => Promise<T>): Promise<{ n: number; value: T }> {
  const before = spawnCounts().byCommand['merge-base'] ?? 0;
  const value = await fn();
  return { n: (spawnCounts().byCommand['merge-base'] ?? 0) - before, value };
}

describe('issue 24: reachability answers kept per (commit, head)', () => {
  let g: GitDir;
  let up: Upstream;
  let root: string;
  let sideHead: string;
  beforeAll(async () => {
    g = await makeRepo([
      { message: 'root', files: { 'a.txt': 'a\n' } },
      { message: 'side', files: { 's.txt': 's\n' }, branch: 'side' },
      { message: 'main 1', files: { 'a.txt': 'a1\n' }, branch: 'main' },
      { message: 'main 2', files: { 'a.txt': 'a2\n' }, branch: 'main' },
    ]);
    root = (await g.git('rev-list', '--max-parents=0', 'main')).trim();
    sideHead = await g.head('side');
    up = createLocalGitUpstream({ repos: [g.dir] });
    await up.getCommit(g.dir, root);
  });
  afterAll(async () => {
    await up.close();
    await g.cleanup();
  });

  it('answers false for a commit the head does not reach and true for one it does, once each, then a new head afresh', async () => {
    const head1 = await g.head('main');
    const notReached = await counted(() => up.getCommit(g.dir, sideHead, 'main'));
    expect(notReached.n).toBe(1);
    expect(!notReached.value.ok && notReached.value.error.code).toBe('not_found');
    const again = await counted(() => up.getCommit(g.dir, sideHead, 'main'));
    expect(again.n).toBe(0);
    expect(!again.value.ok && again.value.error.code).toBe('not_found');
    const ancestor = await counted(() => up.getCommit(g.dir, root, 'main'));
    expect(ancestor.n).toBe(1);
    expect(ancestor.value.ok && ancestor.value.value.sha).toBe(root);
    expect((await counted(() => up.getCommit(g.dir, root, 'main'))).n).toBe(0);
    // The same pairs through isAncestor (changes_since, workspace revisions) share the answers.
    expect(await counted(() => up.isAncestor(g.dir, sideHead, head1))).toEqual({
      n: 0,
      value: { ok: true, value: false },
    });
    expect(await counted(() => up.isAncestor(g.dir, root, head1))).toEqual({ n: 0, value: { ok: true, value: true } });

    // A new head id that now reaches the side commit gets its own answer, not the old head's.
    await g.git('merge', '-q', '--no-ff', '-m', 'merge side', 'side');
    const head2 = await g.head('main');
    expect(head2).not.toBe(head1);
    const reached = await counted(() => up.getCommit(g.dir, sideHead, 'main'));
    expect(reached.n).toBe(1);
    expect(reached.value.ok && reached.value.value.sha).toBe(sideHead);
    expect((await counted(() => up.getCommit(g.dir, sideHead, 'main'))).n).toBe(0);
    // The old head's answer is still its own.
    expect(await counted(() => up.isAncestor(g.dir, sideHead, head1))).toEqual({
      n: 0,
      value: { ok: true, value: false },
    });
  });

  it('asks git every time while a shallow or grafts file alters the graph, and keeps nothing learnt then', async () => {
    const head = await g.head('main');
    const parent = (await g.git('rev-parse', 'main~1')).trim();
    expect((await up.getCommit(g.dir, root, 'main')).ok).toBe(true);
    // The graph made to end at main~1 and at the side commit (both parents of the merge head).
    const cut = `${parent}\n${sideHead}\n`;
    for (const file of ['shallow', join('info', 'grafts')]) {
      // The root is out of reach now, and git says so every time.
      await writeFile(join(g.dir, '.git', file), cut);
      try {
        for (let k = 0; k < 2; k++) {
          const r = await counted(() => up.getCommit(g.dir, root, 'main'));
          expect(r.n, file).toBe(1);
          expect(!r.value.ok && r.value.error.code, file).toBe('not_found');
        }
        expect(await counted(() => up.isAncestor(g.dir, root, head))).toEqual({
          n: 1,
          value: { ok: true, value: false },
        });
      } finally {
        await rm(join(g.dir, '.git', file));
      }
      // Back to the plain graph: the answer kept from before is git's again, with no process.
      const back = await counted(() => up.getCommit(g.dir, root, 'main'));
      expect(back.n, file).toBe(0);
      expect(back.value.ok, file).toBe(true);
    }
  });

  it('answers for the head itself and for what a history page from that head listed without a process', async () => {
    await g.commit({ message: 'main 3', files: { 'b.txt': 'b\n' }, branch: 'main' });
    await g.commit({ message: 'main 4', files: { 'a.txt': 'a4\n' }, branch: 'main' });
    await g.commit({ message: 'main 5', files: { 'a.txt': 'a5\n' }, branch: 'main' });
    const head = await g.head('main');
    // (The head's own get_commit makes its parent known as reachable; main 3 is two below it.)
    expect((await counted(() => up.getCommit(g.dir, head, 'main'))).n).toBe(0);
    const page = await up.listCommits(g.dir, 'main', { paths: ['b.txt'], skip: 0, limit: 5 });
    const listed = page.ok ? page.value.commits : [];
    expect(listed.map((c) => c.message)).toEqual(['main 3']);
    const c = await counted(() => up.getCommit(g.dir, listed[0]!.sha, 'main'));
    expect(c.n).toBe(0);
    expect(c.value.ok && c.value.value.sha).toBe(listed[0]!.sha);
    // A commit neither listed nor the parent of one (main 2, below the merge) still costs its one process.
    const unlisted = (await g.git('rev-parse', 'main~4')).trim();
    expect((await counted(() => up.getCommit(g.dir, unlisted, 'main'))).n).toBe(1);
  });
});
