// The DWIM-shadow proof against real repositories: which ref states it proves clean, and that every change to
// them is seen by the next check (no clock, no cache that outlives a change).
import { mkdir, utimes } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createShadowProof } from '../../../src/upstream/localgit/ref-shadows.js';
import { makeRepo, type GitDir } from '../../support/gitdir.js';

describe('ref shadow proof', () => {
  let g: GitDir;
  let common: string;
  beforeEach(async () => {
    g = await makeRepo([{ message: 'root', files: { 'a.txt': 'a\n' } }]);
    common = join(g.dir, '.git');
  });
  afterEach(async () => {
    await g.cleanup();
  });

  it('proves a plain repository clean, loose or packed, and sees each shadow prefix at once', async () => {
    const proof = createShadowProof(common);
    expect(proof.clear()).toBe(true);
    await g.git('branch', 'feature');
    await g.git('tag', 'v1');
    await g.git('pack-refs', '--all', '--prune');
    expect(proof.clear()).toBe(true);
    for (const ref of ['refs/refs/x', 'refs/tags/refs/x', 'refs/heads/refs/x', 'refs/remotes/refs/x/HEAD']) {
      await g.git('update-ref', ref, 'HEAD');
      expect(proof.clear(), ref).toBe(false);
      await g.git('pack-refs', '--all', '--prune');
      expect(proof.clear(), `${ref} packed`).toBe(false);
      await g.git('update-ref', '-d', ref);
      expect(proof.clear(), `${ref} deleted`).toBe(true);
    }
  });

  it('keeps an old empty leftover directory proven by its times, and sees a ref made in it', async () => {
    const proof = createShadowProof(common);
    await g.git('update-ref', 'refs/refs/heads/x', 'HEAD');
    await g.git('pack-refs', '--all', '--prune');
    await g.git('update-ref', '-d', 'refs/refs/heads/x');
    // git leaves `refs/refs` behind, empty.
    const left = join(common, 'refs', 'refs');
    expect(proof.clear()).toBe(true);
    const old = new Date(Date.now() - 60_000);
    await utimes(left, old, old);
    expect(proof.clear()).toBe(true);
    expect(proof.clear()).toBe(true);
    await g.git('update-ref', 'refs/refs/heads/x', 'HEAD');
    expect(proof.clear()).toBe(false);
  });

  it('never proves a repository that keeps its refs in a reftable', async () => {
    const proof = createShadowProof(common);
    expect(proof.clear()).toBe(true);
    await mkdir(join(common, 'reftable'));
    expect(proof.clear()).toBe(false);
  });
});
