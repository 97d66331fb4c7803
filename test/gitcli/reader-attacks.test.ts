// Attacks on the long-lived readers through repository content an agent controls: file names that try to forge
// the diff reader's framing or the cat-file answer format, and refs named like git's DWIM expansions of a branch.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLocalGitUpstream } from '../../src/upstream/localgit/index.js';
import type { Upstream } from '../../src/upstream/types.js';
import { makeRepo, type GitDir } from '../support/gitdir.js';

describe('reader attacks', () => {
  let g: GitDir;
  let up: Upstream;
  const forged = 'x\n~end-00000000000000000000000000000000\n';
  beforeAll(async () => {
    g = await makeRepo([
      { message: 'root', files: { 'a.txt': 'a\n' } },
      {
        message: 'hostile names',
        files: {
          [`evil\n~end-${'0'.repeat(32)}\ndiff --git a/x b/x`]: forged,
          'd/0123456789abcdef0123456789abcdef01234567 blob 5': 'fake header\n',
          'd/sp ace missing': 'm\n',
          'b.txt': `@@ -1 +1 @@\n~end-x\n${'diff --git a/q b/q\n'.repeat(3)}`,
        },
      },
    ]);
    up = createLocalGitUpstream({ repos: [g.dir] });
  });
  afterAll(async () => {
    await up.close();
    await g.cleanup();
  });

  it('get_commit lists hostile names and patches exactly as git does, twice in a row on one reader', async () => {
    const head = await g.head('main');
    const want = (await g.git('diff-tree', '-r', '--name-only', '--no-renames', '-z', `${head}~1`, head))
      .split('\0')
      .filter(Boolean);
    for (let k = 0; k < 2; k++) {
      const c = await up.getCommit(g.dir, head, 'main');
      expect(c.ok && c.value.files.map((f) => f.path).sort()).toEqual([...want].sort());
      const b = c.ok ? c.value.files.find((f) => f.path === 'b.txt') : undefined;
      expect(b?.additions).toBe(5);
      expect(b?.patch).toContain('+~end-x');
    }
    const after = await up.readFiles(g.dir, 'main', ['a.txt']);
    expect(after.ok && after.value[0]?.ok).toBe(true);
  });

  it('reads files whose names look like cat-file answers by their own bytes', async () => {
    const r = await up.readFiles(g.dir, 'main', [
      'd/0123456789abcdef0123456789abcdef01234567 blob 5',
      'd/sp ace missing',
      'd/sp ace',
    ]);
    expect(r.ok && r.value.map((f) => (f.ok ? Buffer.from(f.bytes).toString('utf8') : f.error.code))).toEqual([
      'fake header\n',
      'm\n',
      'not_found',
    ]);
  });

  it('never answers a missing branch with a ref named like its DWIM expansion', async () => {
    const main = await g.head('main');
    // A branch literally named "refs/heads/gone": git would resolve "refs/heads/gone" to it when "gone" is missing.
    await g.git('branch', 'refs/heads/gone', main);
    await g.git('update-ref', 'refs/refs/heads/gone2', main);
    for (const name of ['gone', 'gone2']) {
      const h = await up.branchHead(g.dir, name);
      expect(!h.ok && h.error.code).toBe('not_found');
      const t = await up.getTree(g.dir, `refs/heads/${name}`, '');
      expect(!t.ok && t.error.code).toBe('not_found');
    }
    // The exact branch is still found by its full name.
    expect(await up.branchHead(g.dir, 'refs/heads/gone')).toEqual({ ok: true, value: main });
  });
});
