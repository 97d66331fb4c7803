// Issue 24, writes: a one-file push_files cost ten git processes where the plumbing that makes the same commit needs
// six (hash-object, read-tree into a temporary index, update-index, write-tree, commit-tree, update-ref). The branch
// name check, the worktree listing of a bare repository, `ls-files` for the written paths' modes and the `diff-tree`
// that judges the computed change were processes of their own. Counted with the real spawn counter of src/gitcli;
// the commit's content is checked against git, so a cheaper path that wrote something else would fail here.
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnCounts } from '../../src/gitcli/spawns.js';
import { createLocalGitUpstream } from '../../src/upstream/localgit/index.js';
import type { Upstream } from '../../src/upstream/types.js';
import { makeRepo, type GitDir } from '../support/gitdir.js';

async function spawned<T>(fn: () => Promise<T>): Promise<{ by: Record<string, number>; value: T }> {
  const before = spawnCounts().byCommand;
  const value = await fn();
  const by: Record<string, number> = {};
  for (const [k, v] of Object.entries(spawnCounts().byCommand))
    if (v !== (before[k] ?? 0)) by[k] = v - (before[k] ?? 0);
  return { by, value };
}

describe('issue 24: a one-file push runs the plumbing’s own processes', () => {
  let g: GitDir;
  let up: Upstream;
  beforeAll(async () => {
    g = await makeRepo(
      [{ message: 'root', files: { 'a/run.sh': '#!/bin/sh\n', 'a/b/c.txt': 'c\n', 'keep.txt': 'k\n' } }],
      { bare: true },
    );
    // An executable file, made with the plumbing (a bare repository has no working tree to chmod in).
    const env = { ...process.env, GIT_INDEX_FILE: join(g.dir, 'tmp-index') };
    const git = (args: string[], input?: string) =>
      execFileSync('git', args, { cwd: g.dir, env, ...(input === undefined ? {} : { input }) })
        .toString()
        .trim();
    const blob = git(['hash-object', '-w', '--stdin'], '#!/bin/sh\n');
    git(['read-tree', 'main']);
    git(['update-index', '--cacheinfo', `100755,${blob},a/run.sh`]);
    const commit = git(['commit-tree', git(['write-tree']), '-p', 'main', '-m', 'exec']);
    git(['update-ref', 'refs/heads/main', commit]);
    rmSync(join(g.dir, 'tmp-index'));
    up = createLocalGitUpstream({ repos: [g.dir] });
    await up.branchHead(g.dir, 'main'); // opens the repository and starts its reader once
  });
  afterAll(async () => {
    await up?.close?.();
    await g?.cleanup();
  });

  it('writes, replaces and deletes with one hash-object per file and one of each other plumbing step, and the commit holds exactly the change', async () => {
    const parent = (await g.git('rev-parse', 'main')).trim();
    const seen: string[][] = [];
    const { by, value } = await spawned(() =>
      up.commitFiles(g.dir, 'main', {
        message: 'one push',
        files: [
          { path: 'a/b/c.txt', content: 'c2\n', encoding: 'utf-8' },
          { path: 'new/file.txt', content: 'n\n', encoding: 'utf-8' },
        ],
        deletes: ['keep.txt', 'no/such/file'],
        admit: (changed) => (seen.push([...changed]), true),
      }),
    );
    expect(value.ok).toBe(true);
    // One hash-object per written file; everything else once.
    expect(by).toEqual({
      'hash-object': 2,
      'read-tree': 1,
      'update-index': 1,
      'write-tree': 1,
      'commit-tree': 1,
      'update-ref': 1,
    });
    // The change judged is what git computes between the parent and the new commit.
    const head = (await g.git('rev-parse', 'main')).trim();
    const diff = (await g.git('diff-tree', '-r', '--name-only', '--no-renames', parent, head)).split('\n');
    expect(seen).toEqual([diff.filter(Boolean)]);
    expect(seen[0]).toEqual(['a/b/c.txt', 'keep.txt', 'new/file.txt']);
    expect(await g.git('show', `${head}:a/b/c.txt`)).toBe('c2\n');
    expect((await g.git('ls-tree', '-r', '--name-only', head)).split('\n').filter(Boolean)).toEqual([
      'a/b/c.txt',
      'a/run.sh',
      'new/file.txt',
    ]);
  });

  it('keeps an executable file executable when it is replaced (its mode read from the tree objects)', async () => {
    const before = (await g.git('ls-tree', 'main', 'a/run.sh')).split(' ')[0];
    expect(before).toBe('100755');
    const r = await up.commitFiles(g.dir, 'main', {
      message: 'replace the script',
      files: [{ path: 'a/run.sh', content: '#!/bin/sh\necho hi\n', encoding: 'utf-8' }],
      deletes: [],
    });
    expect(r.ok).toBe(true);
    expect((await g.git('ls-tree', 'main', 'a/run.sh')).split(' ')[0]).toBe(before);
  });
});
