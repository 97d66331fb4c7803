// Writes through the local git adapter: compare-and-swap retries, conflicts, working trees, concurrency, collisions.
import { chmod, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createLocalGitUpstream } from '../../../src/upstream/localgit/index.js';
import type { WriteRequest } from '../../../src/upstream/types.js';
import { makeRepo, type GitDir } from '../../support/gitdir.js';

const put = (path: string, content: string, message = `write ${path}`): WriteRequest => ({
  message,
  files: [{ path, content, encoding: 'utf-8' }],
  deletes: [],
});

describe('localgit writes', () => {
  const repos: GitDir[] = [];
  const repo = async (bare: boolean) => {
    const g = await makeRepo(
      [
        {
          message: 'init',
          files: { 'a.txt': 'a\n', 'dir/x.txt': 'x\n', 'run.sh': '#!/bin/sh\n', ln: { symlink: 'a.txt' } },
        },
      ],
      { bare },
    );
    if (!bare) {
      await chmod(join(g.dir, 'run.sh'), 0o755);
      await g.commit({ message: 'exec', files: {} });
    }
    repos.push(g);
    return g;
  };
  afterEach(async () => {
    await Promise.all(repos.splice(0).map((g) => g.cleanup()));
  });

  it('rebuilds on a head that moved mid-flight when the move touched other files', async () => {
    const g = await repo(true);
    let moved = '';
    const up = createLocalGitUpstream({
      hooks: {
        beforeUpdateRef: async ({ attempt }) => {
          if (attempt === 0) moved = await g.commit({ message: 'second writer', files: { 'other.txt': 'o\n' } });
        },
      },
    });
    const r = await up.commitFiles(g.dir, 'main', put('mine.txt', 'm\n'));
    expect(r.ok && r.value).toMatchObject({ parent: moved, retries: 1 });
    const files = await up.readFiles(g.dir, 'main', ['mine.txt', 'other.txt']);
    expect(files.ok && files.value.map((f) => f.ok)).toEqual([true, true]);
    expect((await g.git('rev-parse', 'main^')).trim()).toBe(moved);
  });

  it('answers conflict and writes no commit when the move touched the same path', async () => {
    const g = await repo(true);
    let moved = '';
    const up = createLocalGitUpstream({
      hooks: {
        beforeUpdateRef: async () => {
          moved = await g.commit({ message: 'second writer', files: { 'a.txt': 'theirs\n' } });
        },
      },
    });
    const r = await up.commitFiles(g.dir, 'main', put('a.txt', 'mine\n'));
    expect(!r.ok && r.error).toEqual({
      code: 'conflict',
      message: 'The branch moved and touched the same files; read them again and retry.',
    });
    expect(await g.head()).toBe(moved);
  });

  it('refuses a write to a path that is dirty in the checked-out working tree, and carries other changes over', async () => {
    const g = await repo(false);
    const before = await g.head();
    await writeFile(join(g.dir, 'a.txt'), 'local edit\n');
    const up = createLocalGitUpstream();
    const r = await up.commitFiles(g.dir, 'main', put('a.txt', 'n\n'));
    expect(!r.ok && r.error).toEqual({
      code: 'conflict',
      message:
        'The branch is checked out in a working tree that holds uncommitted work at "a.txt" (or below it); nothing was written. Write other paths, or ask the operator to commit or move that work.',
    });
    expect(await g.head()).toBe(before);
    expect(await readFile(join(g.dir, 'a.txt'), 'utf8')).toBe('local edit\n');
    // Another path lands, and the local edit is carried over untouched.
    const other = await up.commitFiles(g.dir, 'main', put('new.txt', 'n\n'));
    expect(other.ok).toBe(true);
    expect(await readFile(join(g.dir, 'new.txt'), 'utf8')).toBe('n\n');
    expect(await readFile(join(g.dir, 'a.txt'), 'utf8')).toBe('local edit\n');
    expect(await g.git('status', '--porcelain')).toBe(' M a.txt\n');
    // Staged-only changes count as dirty too; another branch is not affected by the dirty checkout.
    await g.git('add', 'a.txt');
    const staged = await up.commitFiles(g.dir, 'main', put('a.txt', 'n\n'));
    expect(!staged.ok && staged.error.code).toBe('conflict');
    await g.git('branch', 'other', before);
    expect((await up.commitFiles(g.dir, 'other', put('a.txt', 'n\n'))).ok).toBe(true);
  });

  it('updates a clean checked-out working tree along with the ref', async () => {
    const g = await repo(false);
    const up = createLocalGitUpstream();
    const r = await up.commitFiles(g.dir, 'main', {
      message: 'edit',
      files: [{ path: 'dir/new.txt', content: 'n\n', encoding: 'utf-8' }],
      deletes: ['a.txt'],
    });
    expect(r.ok).toBe(true);
    expect(await readFile(join(g.dir, 'dir/new.txt'), 'utf8')).toBe('n\n');
    await expect(readFile(join(g.dir, 'a.txt'), 'utf8')).rejects.toThrow();
    expect(await g.git('status', '--porcelain')).toBe('');
    expect(r.ok && (await g.head())).toBe(r.ok && r.value.sha);
  });

  it('updates a linked worktree that has the branch checked out', async () => {
    const g = await repo(false);
    const wt = `${g.dir}-wt`;
    await g.git('worktree', 'add', '-q', '-b', 'feat', wt);
    const up = createLocalGitUpstream();
    const r = await up.commitFiles(g.dir, 'feat', put('feat.txt', 'f\n'));
    expect(r.ok).toBe(true);
    expect(await readFile(join(wt, 'feat.txt'), 'utf8')).toBe('f\n');
    expect(await g.git('-C', wt, 'status', '--porcelain')).toBe('');
    await writeFile(join(wt, 'feat.txt'), 'dirty\n');
    expect((await up.commitFiles(g.dir, 'feat', put('more.txt', 'm\n'))).ok).toBe(true);
    const dirty = await up.commitFiles(g.dir, 'feat', put('feat.txt', 'm\n'));
    expect(!dirty.ok && dirty.error.code).toBe('conflict');
    expect(await readFile(join(wt, 'feat.txt'), 'utf8')).toBe('dirty\n');
  });

  it('rolls the working tree back when the ref moved under it', async () => {
    const g = await repo(false);
    const before = await g.head();
    const up = createLocalGitUpstream({
      hooks: {
        beforeUpdateRef: async ({ attempt }) => {
          // Someone moves the ref before every attempt without touching the checkout: our update must not leave the tree
          // half-moved. Each move is a distinct commit (its message names the attempt), so the ref really moves every
          // time; an identical commit-tree in the same second would not move it, and the retry would then land.
          const head = (await g.git('rev-parse', 'refs/heads/main')).trim();
          const moved = (
            await g.git('commit-tree', `${before}^{tree}`, '-p', head, '-m', `elsewhere ${attempt}`)
          ).trim();
          await g.git('update-ref', 'refs/heads/main', moved);
        },
      },
    });
    const r = await up.commitFiles(g.dir, 'main', put('mine.txt', 'm\n'));
    expect(!r.ok && r.error.code).toBe('conflict');
    await expect(readFile(join(g.dir, 'mine.txt'), 'utf8')).rejects.toThrow();
    expect(await g.git('diff', '--cached', '--name-only', before)).toBe('');
  });

  it('lands 10 concurrent writes to one branch, each on the previous', async () => {
    const g = await repo(true);
    const base = await g.head();
    const up = createLocalGitUpstream();
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) => up.commitFiles(g.dir, 'main', put(`c/${i}.txt`, `${i}\n`))),
    );
    expect(results.every((r) => r.ok)).toBe(true);
    expect((await g.git('rev-list', '--count', `${base}..main`)).trim()).toBe('10');
    const t = await up.getTree(g.dir, 'main', 'c');
    expect(t.ok && t.value.entries).toHaveLength(10);
  });

  it('keeps every commit when two independent writers race (compare-and-swap across instances)', async () => {
    const g = await repo(true);
    const base = await g.head();
    const a = createLocalGitUpstream();
    const b = createLocalGitUpstream();
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) => (i % 2 ? a : b).commitFiles(g.dir, 'main', put(`r/${i}.txt`, `${i}\n`))),
    );
    const landed = results.filter((r) => r.ok).length;
    // Every write either landed or said the branch kept moving; none was lost silently.
    expect(results.every((r) => r.ok || r.error.code === 'conflict')).toBe(true);
    expect((await g.git('rev-list', '--count', `${base}..main`)).trim()).toBe(String(landed));
    expect(landed).toBeGreaterThanOrEqual(2);
  });

  it('refuses file/directory collisions and bad requests with invalid, writing nothing', async () => {
    const g = await repo(true);
    const before = await g.head();
    const up = createLocalGitUpstream();
    // A collision replaces what is in the way (as GitHub does); the caller's `admit` sees every changed path.
    const named = (r: WriteRequest): WriteRequest => ({
      ...r,
      admit: (c) => c.every((p) => r.files.some((f) => f.path === p) || r.deletes.includes(p)),
    });
    const cases: WriteRequest[] = [
      named(put('a.txt/inner', 'x')),
      named(put('dir', 'x')),
      {
        message: 'two',
        files: [
          { path: 'n', content: 'x', encoding: 'utf-8' },
          { path: 'n/m', content: 'y', encoding: 'utf-8' },
        ],
        deletes: [],
      },
      put('../escape', 'x'),
      put('/abs', 'x'),
      put('ok.txt', 'x', '   '),
      { message: 'b64', files: [{ path: 'b', content: '***', encoding: 'base64' }], deletes: [] },
      { message: 'author', files: [], deletes: [], author: { name: 'x <y>', email: 'e' } },
    ];
    for (const c of cases) {
      const r = await up.commitFiles(g.dir, 'main', c);
      expect(!r.ok && r.error.code, JSON.stringify(c)).toBe('invalid');
    }
    const badBranch = await up.commitFiles(g.dir, 'main..x', put('ok.txt', 'x'));
    expect(!badBranch.ok && badBranch.error.code).toBe('invalid');
    expect(await g.head()).toBe(before);
    // Deleting the file that is in the way makes the same write valid.
    const fixed = await up.commitFiles(g.dir, 'main', {
      message: 'swap',
      files: [{ path: 'a.txt/inner', content: 'x', encoding: 'utf-8' }],
      deletes: ['a.txt'],
    });
    expect(fixed.ok).toBe(true);
  });

  it('keeps the executable bit and turns an overwritten symlink into a regular file', async () => {
    const g = await repo(false);
    const up = createLocalGitUpstream();
    const r = await up.commitFiles(g.dir, 'main', {
      message: 'm',
      files: [
        { path: 'run.sh', content: '#!/bin/sh\necho\n', encoding: 'utf-8' },
        { path: 'ln', content: 'plain', encoding: 'utf-8' },
      ],
      deletes: [],
    });
    expect(r.ok).toBe(true);
    const ls = await g.git('ls-tree', 'main', '--', 'run.sh', 'ln');
    expect(ls).toMatch(/^100644 blob \w+\tln\n100755 blob \w+\trun\.sh\n$/);
  });
});
