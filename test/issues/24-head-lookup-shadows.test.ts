// Issue 24: a head lookup is one cat-file line when no ref could stand in for the asked name under git's DWIM rules.
// These check that a shadow made after the lookup's proof was last taken is honoured at once — loose or packed, a
// ref under refs/refs/, a branch or a tag named like the full ref, in the repository or through a linked worktree —
// and that refs moved, packed or deleted by another process are seen by the next call.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createLocalGitUpstream } from '../../src/upstream/localgit/index.js';
import type { Upstream } from '../../src/upstream/types.js';
import { gitIn, makeRepo, type GitDir } from '../support/gitdir.js';

/** A repository with `main` and `side` (different a.txt), and an upstream over it. */
async function fixture(): Promise<{ g: GitDir; up: Upstream; main: string; side: string; done: () => Promise<void> }> {
  const g = await makeRepo([
    { message: 'root', files: { 'a.txt': 'main\n' } },
    { message: 'side', files: { 'a.txt': 'side\n' }, branch: 'side' },
  ]);
  const up = createLocalGitUpstream({ repos: [g.dir] });
  const done = async () => {
    await up.close();
    await g.cleanup();
  };
  return { g, up, main: await g.head('main'), side: await g.head('side'), done };
}

/** What `a.txt` reads at `ref`, or the error code. */
async function text(up: Upstream, repo: string, ref: string): Promise<string> {
  const r = await up.readFiles(repo, ref, ['a.txt']);
  if (!r.ok) return r.error.code;
  const one = r.value[0];
  return one?.ok ? Buffer.from(one.bytes).toString('utf8') : (one?.error.code ?? 'none');
}

/** The head of `branch`, or the error code. */
async function head(up: Upstream, repo: string, branch: string): Promise<string> {
  const h = await up.branchHead(repo, branch);
  return h.ok ? h.value : h.error.code;
}

describe('issue 24: head lookups and DWIM shadows', () => {
  // Each way of making a ref that git's DWIM would take for `refs/heads/<x>` once that branch is gone.
  const shadows: [string, string][] = [
    ['refs/refs/heads/<x>', 'refs/refs/heads/x'],
    ['a branch named refs/heads/<x>', 'refs/heads/refs/heads/x'],
    ['a tag named refs/heads/<x>', 'refs/tags/refs/heads/x'],
    ['refs/remotes/refs/heads/<x>/HEAD', 'refs/remotes/refs/heads/x/HEAD'],
  ];

  // A fresh repository per kind: git leaves an emptied `refs/refs` directory behind, which must not hide the others.
  for (const [kind, shadow] of shadows) {
    it(`honours ${kind} made after the last lookup, loose and then packed`, async () => {
      const { g, up, main, side, done } = await fixture();
      try {
        await g.git('branch', 'x', main);
        // Proven clean and answered by the one-line lookup.
        expect(await head(up, g.dir, 'x')).toBe(main);
        await g.git('update-ref', shadow, side);
        // The branch itself still answers for its own name...
        expect(await head(up, g.dir, 'x')).toBe(main);
        expect(await text(up, g.dir, 'x')).toBe('main\n');
        await g.git('branch', '-D', 'x');
        // ...and once it is gone, the shadow never answers in its place.
        expect(await head(up, g.dir, 'x')).toBe('not_found');
        expect(await text(up, g.dir, 'x')).toBe('not_found');
        expect(await text(up, g.dir, 'refs/heads/x')).toBe('not_found');

        // The same with everything in packed-refs (and whatever loose directories git leaves).
        await g.git('update-ref', '-d', shadow);
        await g.git('branch', 'x', main);
        expect(await head(up, g.dir, 'x')).toBe(main);
        await g.git('update-ref', shadow, side);
        await g.git('pack-refs', '--all', '--prune');
        expect(await head(up, g.dir, 'x')).toBe(main);
        await g.git('branch', '-D', 'x');
        expect(await head(up, g.dir, 'x')).toBe('not_found');
        expect(await text(up, g.dir, 'refs/heads/x')).toBe('not_found');

        // Shadow gone: the branch is found again, and a shadow made after that is honoured again.
        await g.git('update-ref', '-d', shadow);
        await g.git('branch', 'x', side);
        expect(await head(up, g.dir, 'x')).toBe(side);
        await g.git('branch', '-D', 'x');
        expect(await head(up, g.dir, 'x')).toBe('not_found');
        await g.git('update-ref', shadow, main);
        expect(await head(up, g.dir, 'x')).toBe('not_found');
        expect(await text(up, g.dir, 'refs/heads/x')).toBe('not_found');
      } finally {
        await done();
      }
    });
  }

  it('honours a shadow made in the common dir when the repository is read through a linked worktree', async () => {
    const { g, up, main, side, done } = await fixture();
    const wt = join(g.dir, '..', 'linked');
    try {
      await g.git('worktree', 'add', '-q', '-b', 'wt-branch', wt, main);
      await g.git('branch', 'lx', main);
      expect(await head(up, wt, 'lx')).toBe(main);
      await gitIn(wt, ['update-ref', 'refs/refs/heads/lx', side]);
      await gitIn(wt, ['branch', '-D', 'lx']);
      expect(await head(up, wt, 'lx')).toBe('not_found');
      expect(await text(up, wt, 'lx')).toBe('not_found');
      // Packed from the worktree: still the one packed-refs, in the common dir.
      await g.git('update-ref', '-d', 'refs/refs/heads/lx');
      await g.git('branch', 'lx', main);
      expect(await head(up, wt, 'lx')).toBe(main);
      await gitIn(wt, ['tag', 'refs/heads/lx', side]);
      await gitIn(wt, ['pack-refs', '--all', '--prune']);
      await g.git('branch', '-D', 'lx');
      expect(await head(up, wt, 'lx')).toBe('not_found');
      await g.git('tag', '-d', 'refs/heads/lx');
      await g.git('branch', 'lx', side);
      expect(await head(up, wt, 'lx')).toBe(side);
    } finally {
      await done();
    }
  });

  it('sees a branch moved, packed, moved inside packed-refs and deleted by another process between two calls', async () => {
    const { g, up, main, side, done } = await fixture();
    try {
      await g.git('branch', 'moving', main);
      expect(await head(up, g.dir, 'moving')).toBe(main);
      expect(await text(up, g.dir, 'moving')).toBe('main\n');
      await g.git('update-ref', 'refs/heads/moving', side);
      expect(await head(up, g.dir, 'moving')).toBe(side);
      expect(await text(up, g.dir, 'moving')).toBe('side\n');
      await g.git('pack-refs', '--all', '--prune');
      expect(await head(up, g.dir, 'moving')).toBe(side);
      // Moved: a loose ref over the packed one, then packed again with the loose copy removed.
      await g.git('update-ref', 'refs/heads/moving', main);
      expect(await text(up, g.dir, 'moving')).toBe('main\n');
      await g.git('pack-refs', '--all', '--prune');
      expect(await head(up, g.dir, 'moving')).toBe(main);
      await g.git('update-ref', '-d', 'refs/heads/moving');
      expect(await head(up, g.dir, 'moving')).toBe('not_found');
      expect(await text(up, g.dir, 'moving')).toBe('not_found');
    } finally {
      await done();
    }
  });
});
