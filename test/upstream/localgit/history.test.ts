// History from the local git adapter: root commits, merges, renames, patches, reachability.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLocalGitUpstream } from '../../../src/upstream/localgit/index.js';
import { makeRepo, type GitDir } from '../../support/gitdir.js';

describe('localgit history', () => {
  let g: GitDir;
  const up = createLocalGitUpstream();
  beforeAll(async () => {
    g = await makeRepo([
      { message: 'root\n\nwith a body', files: { 'a.txt': 'a\n', 'keep.txt': 'line1\nline2\nline3\nline4\nline5\n' } },
      { message: 'side', files: { 'side.txt': 'side\n' }, branch: 'side' },
      { message: 'main work', files: { 'a.txt': 'a2\n' }, branch: 'main' },
      { message: 'move', files: { 'keep.txt': null, 'moved/keep.txt': 'line1\nline2\nline3\nline4\nline5\nline6\n' } },
      { message: 'huge', files: { 'huge.txt': `${'y'.repeat(100)}\n`.repeat(1000) } },
    ]);
    await g.git('merge', '-q', '--no-ff', '-m', 'merge side', 'side');
  });
  afterAll(async () => {
    await g.cleanup();
  });

  it('gives the root commit its files against the empty tree and keeps the message body', async () => {
    const root = (await g.git('rev-list', '--max-parents=0', 'main')).trim();
    const c = await up.getCommit(g.dir, root);
    expect(c.ok && c.value.message).toBe('root\n\nwith a body');
    expect(c.ok && c.value.parents).toEqual([]);
    expect(c.ok && c.value.files.map((f) => [f.path, f.status, f.additions])).toEqual([
      ['a.txt', 'added', 1],
      ['keep.txt', 'added', 5],
    ]);
    expect(c.ok && c.value.files[0]?.patch).toBe('@@ -0,0 +1 @@\n+a');
  });

  it('pairs renames with edits and reports counts', async () => {
    const sha = (await g.git('rev-parse', 'main^1~1')).trim();
    const c = await up.getCommit(g.dir, sha);
    expect(c.ok && c.value.files).toEqual([
      expect.objectContaining({
        path: 'moved/keep.txt',
        previous_path: 'keep.txt',
        status: 'renamed',
        additions: 1,
        deletions: 0,
      }),
    ]);
    const listed = await up.listCommits(g.dir, 'main', { paths: ['moved'], skip: 0, limit: 5 });
    expect(listed.ok && listed.value.commits[0]?.files).toEqual(['keep.txt', 'moved/keep.txt']);
  });

  it('omits patches above the per-file cap but keeps the counts', async () => {
    const c = await up.getCommit(g.dir, (await g.git('rev-parse', 'main^1')).trim());
    expect(c.ok && c.value.files[0]).toMatchObject({ path: 'huge.txt', additions: 1000, deletions: 0 });
    expect(c.ok && c.value.files[0]?.patch).toBeUndefined();
  });

  it('lists a merge with the files it brought in against the first parent', async () => {
    const merge = await g.head();
    const page = await up.listCommits(g.dir, 'main', { paths: [''], skip: 0, limit: 1 });
    expect(page.ok && page.value.commits[0]).toMatchObject({ sha: merge, files: ['side.txt'] });
    expect(page.ok && page.value.commits[0]?.parents).toHaveLength(2);
    const c = await up.getCommit(g.dir, merge);
    expect(c.ok && c.value.files.map((f) => f.path)).toEqual(['side.txt']);
  });

  it('requires reachability when asked and refuses trees and non-canonical ids', async () => {
    const side = await g.head('side');
    expect((await up.getCommit(g.dir, side, 'main')).ok).toBe(true);
    const mainFirst = (await g.git('rev-parse', 'main~2')).trim();
    const r = await up.getCommit(g.dir, mainFirst, 'side');
    expect(!r.ok && r.error).toEqual({ code: 'not_found', message: `Commit not found: ${mainFirst}` });
    const tree = (await g.git('rev-parse', 'main^{tree}')).trim();
    const t = await up.getCommit(g.dir, tree);
    expect(!t.ok && t.error.code).toBe('not_found');
    const upper = await up.getCommit(g.dir, side.toUpperCase());
    expect(!upper.ok && upper.error.code).toBe('not_found');
  });

  it('compares with commits oldest first and files from the merge base', async () => {
    const root = (await g.git('rev-list', '--max-parents=0', 'main')).trim();
    const c = await up.compare(g.dir, root, 'main');
    expect(c.ok && c.value.commits.map((x) => x.message)).toEqual(['side', 'main work', 'move', 'huge', 'merge side']);
    expect(c.ok && c.value.files.map((f) => f.path).sort()).toEqual([
      'a.txt',
      'huge.txt',
      'moved/keep.txt',
      'side.txt',
    ]);
  });
});
