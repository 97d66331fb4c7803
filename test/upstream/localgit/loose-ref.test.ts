// A branch head read from its loose ref file (issue 24), against real repositories: it must give git's own answer or
// none (the caller then asks git), and every move made by another process must show at the next read.
import { mkdir, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLocalGitUpstream } from '../../../src/upstream/localgit/index.js';
import { readLooseRef } from '../../../src/upstream/localgit/loose-ref.js';
import { makeRepo, type GitDir } from '../../support/gitdir.js';

describe('loose ref read', () => {
  let g: GitDir;
  let common: string;
  beforeEach(async () => {
    g = await makeRepo([
      { message: 'one', files: { 'a.txt': 'a\n' } },
      { message: 'two', files: { 'a.txt': 'b\n' } },
    ]);
    common = join(g.dir, '.git');
  });
  afterEach(async () => {
    await g.cleanup();
  });

  it("gives git's id for a loose branch, and each move by another process at the next read", async () => {
    expect(readLooseRef(common, 'refs/heads/main')).toBe(await g.head());
    await g.git('update-ref', 'refs/heads/main', 'HEAD~1');
    expect(readLooseRef(common, 'refs/heads/main')).toBe(await g.head());
    await g.commit({ message: 'three', files: { 'c.txt': 'c\n' } });
    expect(readLooseRef(common, 'refs/heads/main')).toBe(await g.head());
    await g.git('update-ref', '-d', 'refs/heads/main');
    expect(readLooseRef(common, 'refs/heads/main')).toBeUndefined();
  });

  it('answers nothing for what only git can read: packed, symbolic, symlinked, broken, a directory, reftable', async () => {
    await g.git('branch', 'packed');
    await g.git('pack-refs', '--all', '--prune');
    expect(readLooseRef(common, 'refs/heads/packed')).toBeUndefined();
    await g.git('symbolic-ref', 'refs/heads/alias', 'refs/heads/main');
    expect(readLooseRef(common, 'refs/heads/alias')).toBeUndefined();
    await g.git('update-ref', 'refs/heads/main', 'HEAD');
    const id = await g.head();
    await symlink(join(common, 'refs/heads/main'), join(common, 'refs/heads/linked'));
    expect(readLooseRef(common, 'refs/heads/linked')).toBeUndefined();
    for (const junk of [`${id}`, `${id}\n\n`, `${id} \n`, `${id.toUpperCase()}\n`, 'abc\n', '']) {
      await writeFile(join(common, 'refs/heads/junk'), junk);
      expect(readLooseRef(common, 'refs/heads/junk'), JSON.stringify(junk)).toBeUndefined();
    }
    await rm(join(common, 'refs/heads/junk'));
    await g.git('branch', 'dir/inner');
    expect(readLooseRef(common, 'refs/heads/dir')).toBeUndefined();
    expect(readLooseRef(common, 'refs/heads/dir/inner')).toBe(id);
    await mkdir(join(common, 'reftable'));
    expect(readLooseRef(common, 'refs/heads/main')).toBeUndefined();
  });

  it('leaves the adapter answering as git does where the file cannot tell', async () => {
    const up = createLocalGitUpstream({});
    try {
      await g.git('branch', 'packed', 'HEAD~1');
      await g.git('pack-refs', '--all', '--prune');
      await g.git('symbolic-ref', 'refs/heads/alias', 'refs/heads/main');
      const head = await g.head();
      expect(await up.branchHead(g.dir, 'main')).toEqual({ ok: true, value: head });
      expect(await up.branchHead(g.dir, 'packed')).toEqual({ ok: true, value: await g.head('packed') });
      expect(await up.branchHead(g.dir, 'alias')).toEqual({ ok: true, value: head });
      // A loose ref made after the packed one answers for itself.
      await g.git('update-ref', 'refs/heads/packed', 'HEAD');
      expect(await up.branchHead(g.dir, 'packed')).toEqual({ ok: true, value: head });
      expect((await up.branchHead(g.dir, 'nope')).ok).toBe(false);
    } finally {
      await up.close?.();
    }
  });

  it('reads the shared head through a linked worktree', async () => {
    const up = createLocalGitUpstream({});
    const linked = join(g.dir, '..', 'linked');
    try {
      await g.git('worktree', 'add', '-q', '-b', 'side', linked, 'HEAD~1');
      await g.git('update-ref', 'refs/heads/main', 'HEAD~1');
      expect(await up.branchHead(linked, 'main')).toEqual({ ok: true, value: await g.head() });
      expect(await up.branchHead(linked, 'side')).toEqual({ ok: true, value: await g.head('side') });
    } finally {
      await up.close?.();
    }
  });
});
