// Full ids peeled once (their commit and root tree kept by id, issue 24): a kept pair answers exactly what git would —
// an annotated tag's id reads as its commit, a blob or tree id is no commit however often it is asked — and the cache
// is bounded, oldest out first.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCommitTrees } from '../../../src/upstream/localgit/commit-trees.js';
import { createLocalGitUpstream } from '../../../src/upstream/localgit/index.js';
import type { Upstream } from '../../../src/upstream/types.js';
import { makeRepo, type GitDir } from '../../support/gitdir.js';

describe('full ids through the kept commit/tree pairs', () => {
  let g: GitDir;
  let up: Upstream;
  let first: string;
  let second: string;
  let tag: string;
  let blob: string;
  let tree: string;
  beforeAll(async () => {
    g = await makeRepo([
      { message: 'one', files: { 'a.txt': 'one\n' } },
      { message: 'two', files: { 'a.txt': 'two\n', 'b.txt': 'b\n' } },
    ]);
    first = (await g.git('rev-parse', 'main~1')).trim();
    second = (await g.git('rev-parse', 'main')).trim();
    await g.git('tag', '-a', '-m', 'first release', 'v1', first);
    tag = (await g.git('rev-parse', 'v1')).trim();
    blob = (await g.git('rev-parse', 'main:a.txt')).trim();
    tree = (await g.git('rev-parse', 'main^{tree}')).trim();
    up = createLocalGitUpstream({ repos: [g.dir] });
  });
  afterAll(async () => {
    await up.close();
    await g.cleanup();
  });

  const names = async (ref: string) => {
    const t = await up.getTree(g.dir, ref, '');
    return t.ok ? t.value.entries.map((e) => e.path) : t.error.code;
  };

  it('reads a commit id, then an annotated tag id as its commit, the same way each time', async () => {
    for (let i = 0; i < 2; i++) {
      expect(await names(second)).toEqual(['a.txt', 'b.txt']);
      expect(await names(tag)).toEqual(['a.txt']);
      expect(await names(first)).toEqual(['a.txt']);
      const f = await up.readFiles(g.dir, tag, ['a.txt']);
      const read = f.ok ? f.value[0] : undefined;
      expect(read?.ok && Buffer.from(read.bytes).toString()).toBe('one\n');
    }
  });

  it('never takes a blob or tree id for a commit, however often it is asked', async () => {
    for (let i = 0; i < 2; i++) {
      expect(await names(blob)).toBe('not_found');
      expect(await names(tree)).toBe('not_found');
    }
  });

  it('keeps at most its bound, the least recently used going first', () => {
    const c = createCommitTrees(2);
    const pair = (n: string) => ({ commit: n, tree: `t${n}` });
    c.set('a', pair('a'));
    c.set('b', pair('b'));
    expect(c.get('a')).toEqual(pair('a'));
    c.set('c', pair('c'));
    expect(c.get('b')).toBeUndefined();
    expect(c.get('a')).toEqual(pair('a'));
    expect(c.get('c')).toEqual(pair('c'));
  });
});
