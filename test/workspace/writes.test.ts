// Contract of the working-tree write port on real repositories: each operation succeeds and leaves unrelated
// changes alone; a declined one (conflict, nothing to do, local changes in the way) leaves refs, index and files
// byte for byte as they were; every applied one has a restore point that puts things back.
import { readFile, writeFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createWorkTreeWriters } from '../../src/workspace/localfs/writes/index.js';
import { makeRepo, type GitDir } from '../support/gitdir.js';
import { applied, declinedUntouched, snapshot, status, value, writerFor } from './writes-support.js';

const author = { name: 'Agent Person', email: 'agent@example.test' };
const writers = createWorkTreeWriters({ timeoutMs: 30_000 });
let repos: GitDir[] = [];
afterEach(async () => {
  await Promise.all(repos.map((r) => r.cleanup()));
  repos = [];
});

async function repo(extra: Parameters<typeof makeRepo>[0] = []): Promise<GitDir> {
  const g = await makeRepo([
    { message: 'root', files: { 'a.txt': 'a\n', 'b.txt': 'b\n', 'c.txt': 'c\n', 'd/e.txt': 'e\n' } },
    ...extra,
  ]);
  repos.push(g);
  return g;
}

const put = (g: GitDir, path: string, text: string) => writeFile(join(g.dir, path), text);
const read = (g: GitDir, path: string) => readFile(join(g.dir, path), 'utf8');

describe('commit', () => {
  it('commits exactly the listed files as on disk; other staged and unstaged changes stay', async () => {
    const g = await repo();
    const head = await g.head();
    await put(g, 'a.txt', 'a2\n');
    await g.git('add', 'a.txt');
    await put(g, 'a.txt', 'a3\n'); // staged a2, on disk a3: the commit takes a3
    await put(g, 'b.txt', 'b2\n'); // unstaged, not listed
    await put(g, 'c.txt', 'c2\n');
    await g.git('add', 'c.txt'); // staged, not listed
    await put(g, 'new.txt', 'n\n'); // untracked, listed
    await rm(join(g.dir, 'd/e.txt')); // deletion, listed
    const w = await writerFor(writers, g.dir, 'main');
    expect(
      value(await w.preview({ kind: 'commit', message: 'm', paths: ['a.txt', 'new.txt', 'd/e.txt'], author })),
    ).toMatchObject({ paths: ['a.txt', 'new.txt', 'd/e.txt'], exact: true, base: head });
    const r = applied(
      await w.apply({ kind: 'commit', message: 'agent commit', paths: ['a.txt', 'new.txt', 'd/e.txt'], author }),
    );
    expect(r.previousHead).toBe(head);
    expect(await g.head()).toBe(r.head);
    expect(await g.git('show', '-s', '--format=%an <%ae>|%cn|%P|%s', r.head)).toBe(
      `Agent Person <agent@example.test>|git-blinder|${head}|agent commit\n`,
    );
    expect(
      (await g.git('diff-tree', '-r', '--name-status', '--no-commit-id', r.head)).trim().split('\n').sort(),
    ).toEqual(['A\tnew.txt', 'D\td/e.txt', 'M\ta.txt']);
    expect(await g.git('show', `${r.head}:a.txt`)).toBe('a3\n');
    expect(await g.git('show', `${r.head}:c.txt`)).toBe('c\n');
    expect((await status(g.dir)).sort()).toEqual([' M b.txt', 'M  c.txt']);
    expect(await g.git('rev-parse', `refs/git-blinder/restore/${r.restorePoint}^`)).toBe(`${head}\n`);
  });

  it('declines a listed path without a change, changing nothing', async () => {
    const g = await repo();
    await put(g, 'a.txt', 'a2\n');
    const w = await writerFor(writers, g.dir, 'main');
    const r = await declinedUntouched(
      g.dir,
      () => w.apply({ kind: 'commit', message: 'm', paths: ['a.txt', 'b.txt'], author }),
      'unchanged',
    );
    expect(r.kind === 'declined' && r.paths).toEqual(['b.txt']);
    await declinedUntouched(g.dir, () => w.apply({ kind: 'commit', message: 'm', paths: ['d'], author }), 'unchanged');
  });

  it('refuses bad input before running anything', async () => {
    const g = await repo();
    const w = await writerFor(writers, g.dir, 'main');
    for (const op of [
      { kind: 'commit' as const, message: '', paths: ['a.txt'], author },
      { kind: 'commit' as const, message: 'm', paths: ['../x'], author },
      { kind: 'commit' as const, message: 'm', paths: ['a.txt', 'a.txt'], author },
      { kind: 'commit' as const, message: 'm', paths: ['a.txt'], author: { name: 'x <y>', email: 'z' } },
    ]) {
      expect(await w.apply(op)).toMatchObject({ ok: false, error: { code: 'invalid' } });
    }
  });
});

const PATCH = `diff --git a/a.txt b/a.txt
index 7898192..f6e4d23 100644
--- a/a.txt
+++ b/a.txt
@@ -1 +1 @@
-a
+patched
diff --git a/d/new.txt b/d/new.txt
new file mode 100644
index 0000000..3e75765
--- /dev/null
+++ b/d/new.txt
@@ -0,0 +1 @@
+new
`;

describe('patch', () => {
  it('reports its paths, applies to the working tree only, and is restorable', async () => {
    const g = await repo();
    await put(g, 'b.txt', 'b2\n');
    const before = await snapshot(g.dir);
    const w = await writerFor(writers, g.dir, 'main');
    expect(value(await w.preview({ kind: 'patch', patch: Buffer.from(PATCH) }))).toMatchObject({
      paths: ['a.txt', 'd/new.txt'],
      exact: true,
    });
    const r = applied(await w.apply({ kind: 'patch', patch: Buffer.from(PATCH) }));
    expect(r.head).toBe(r.previousHead);
    expect(await read(g, 'a.txt')).toBe('patched\n');
    expect((await status(g.dir)).sort()).toEqual([' M a.txt', ' M b.txt', '?? d/new.txt']);
    applied(await writers.restore(g.dir, r.restorePoint!));
    const after = JSON.parse(await snapshot(g.dir));
    const was = JSON.parse(before);
    expect(after.files).toEqual(was.files);
    expect(after.index).toEqual(was.index);
  });

  it('declines a patch that does not apply, or one git would read differently, changing nothing', async () => {
    const g = await repo();
    await put(g, 'a.txt', 'someone else\n');
    const w = await writerFor(writers, g.dir, 'main');
    await declinedUntouched(g.dir, () => w.apply({ kind: 'patch', patch: Buffer.from(PATCH) }), 'does_not_apply');
    const traditional = `--- a.txt\n+++ a.txt\n@@ -1 +1 @@\n-someone else\n+x\n`;
    await declinedUntouched(g.dir, () => w.apply({ kind: 'patch', patch: Buffer.from(traditional) }), 'does_not_apply');
    // A traditional diff smuggled after a git section, past the hunk's counted lines: git would apply it too.
    const smuggled = `diff --git a/b.txt b/b.txt\n--- a/b.txt\n+++ b/b.txt\n@@ -1 +1 @@\n-b\n+b2\n--- c.txt\n+++ c.txt\n@@ -1 +1 @@\n-c\n+c2\n`;
    await declinedUntouched(g.dir, () => w.apply({ kind: 'patch', patch: Buffer.from(smuggled) }), 'does_not_apply');
    expect(await w.preview({ kind: 'patch', patch: Buffer.from(smuggled) })).toMatchObject({
      ok: false,
      error: { code: 'invalid' },
    });
  });

  it('lists both sides of a rename', async () => {
    const g = await repo();
    const w = await writerFor(writers, g.dir, 'main');
    const rename = `diff --git a/c.txt b/moved/c.txt\nsimilarity index 100%\nrename from c.txt\nrename to moved/c.txt\n`;
    expect(value(await w.preview({ kind: 'patch', patch: Buffer.from(rename) })).paths).toEqual([
      'c.txt',
      'moved/c.txt',
    ]);
    applied(await w.apply({ kind: 'patch', patch: Buffer.from(rename) }));
    expect(await read(g, 'moved/c.txt')).toBe('c\n');
  });
});

describe('discard', () => {
  it('stashes exactly the listed paths, restores them from HEAD, and the point puts them back', async () => {
    const g = await repo();
    await put(g, 'a.txt', 'a-staged\n');
    await g.git('add', 'a.txt');
    await put(g, 'a.txt', 'a-disk\n');
    await put(g, 'b.txt', 'b2\n');
    await put(g, 'u.txt', 'untracked\n');
    const before = await snapshot(g.dir);
    const w = await writerFor(writers, g.dir, 'main');
    const r = applied(await w.apply({ kind: 'discard', paths: ['a.txt', 'u.txt'] }));
    expect(await read(g, 'a.txt')).toBe('a\n');
    expect(await status(g.dir)).toEqual([' M b.txt']);
    const points = value(await writers.listRestorePoints(g.dir));
    expect(points[0]).toMatchObject({
      id: r.restorePoint,
      op: 'discard',
      branch: 'main',
      captured: ['a.txt', 'u.txt'],
    });
    applied(await writers.restore(g.dir, r.restorePoint!));
    const after = JSON.parse(await snapshot(g.dir));
    expect(after.files).toEqual(JSON.parse(before).files);
    expect(after.index).toEqual(JSON.parse(before).index);
    expect((await status(g.dir)).sort()).toEqual(['?? u.txt', 'MM a.txt', ' M b.txt'].sort());
  });

  it('declines a path with nothing to discard and leaves no point behind', async () => {
    const g = await repo();
    await put(g, 'a.txt', 'a2\n');
    const w = await writerFor(writers, g.dir, 'main');
    const r = await declinedUntouched(
      g.dir,
      () => w.apply({ kind: 'discard', paths: ['a.txt', 'c.txt'] }),
      'unchanged',
    );
    expect(r.kind === 'declined' && r.paths).toEqual(['c.txt']);
  });
});

describe('merge', () => {
  const branches = [
    { message: 'feature', files: { 'f.txt': 'feature\n' }, branch: 'feature' },
    { message: 'clash', files: { 'a.txt': 'theirs\n' }, branch: 'clash' },
    { message: 'main moves', files: { 'a.txt': 'ours\n' }, branch: 'main' },
  ];

  it('merges non-interactively, previews its paths, keeps unrelated local changes, and restores', async () => {
    const g = await repo(branches);
    const head = await g.head();
    await put(g, 'b.txt', 'local\n');
    const w = await writerFor(writers, g.dir, 'main');
    expect(value(await w.preview({ kind: 'merge', from: 'feature' }))).toMatchObject({
      paths: ['f.txt'],
      conflicts: [],
      exact: true,
    });
    const r = applied(await w.apply({ kind: 'merge', from: 'feature' }));
    expect((await g.git('show', '-s', '--format=%P|%s', r.head)).trim()).toBe(
      `${head} ${await g.head('feature')}|Merge branch 'feature'`,
    );
    expect(await status(g.dir)).toEqual([' M b.txt']);
    applied(await writers.restore(g.dir, r.restorePoint!));
    expect(await g.head()).toBe(head);
    expect(await read(g, 'b.txt')).toBe('local\n');
  });

  it('declines a conflicting merge with its paths, touching nothing', async () => {
    const g = await repo(branches);
    await put(g, 'b.txt', 'local\n');
    const w = await writerFor(writers, g.dir, 'main');
    expect(value(await w.preview({ kind: 'merge', from: 'clash' }))).toMatchObject({ conflicts: ['a.txt'] });
    const r = await declinedUntouched(g.dir, () => w.apply({ kind: 'merge', from: 'clash' }), 'conflict');
    expect(r.kind === 'declined' && r.paths).toEqual(['a.txt']);
  });

  it('declines when local changes stand where the merge writes, touching nothing', async () => {
    const g = await repo(branches);
    await put(g, 'f.txt', 'untracked in the way\n');
    const w = await writerFor(writers, g.dir, 'main');
    await declinedUntouched(g.dir, () => w.apply({ kind: 'merge', from: 'feature' }), 'dirty');
  });

  it('declines while a merge someone else started is in progress, touching nothing', async () => {
    const g = await repo(branches);
    await g.git('merge', '-q', 'clash').catch(() => undefined);
    const w = await writerFor(writers, g.dir, 'main');
    await put(g, 'b.txt', 'b2\n');
    await declinedUntouched(g.dir, () => w.apply({ kind: 'merge', from: 'feature' }), 'in_progress');
    await declinedUntouched(g.dir, () => w.apply({ kind: 'rebase', onto: 'feature' }), 'in_progress');
    await declinedUntouched(
      g.dir,
      () => w.apply({ kind: 'commit', message: 'm', paths: ['b.txt'], author }),
      'in_progress',
    );
  });

  it('refuses revisions that are expressions, options or another namespace', async () => {
    const g = await repo(branches);
    const w = await writerFor(writers, g.dir, 'main');
    const point = applied(await w.apply({ kind: 'branch', name: 'tmp', from: 'main' })).restorePoint!;
    for (const from of [
      '-h',
      '--output=/tmp/x',
      'main~1',
      'feature^',
      '@{-1}',
      'HEAD',
      `refs/git-blinder/restore/${point}`,
      (await g.head()).slice(0, 12),
    ]) {
      const r = await w.apply({ kind: 'merge', from });
      expect(r.ok, from).toBe(false);
      expect(['invalid', 'not_found']).toContain(!r.ok && r.error.code);
    }
  });
});

describe('rebase', () => {
  it('rebases onto a branch, never interactively', async () => {
    const g = await repo([
      { message: 'upstream', files: { 'u.txt': 'u\n' }, branch: 'up' },
      { message: 'mine', files: { 'm.txt': 'm\n' }, branch: 'main' },
    ]);
    const head = await g.head();
    const w = await writerFor(writers, g.dir, 'main');
    expect(value(await w.preview({ kind: 'rebase', onto: 'up' }))).toMatchObject({
      paths: ['u.txt', 'm.txt'],
      exact: false,
    });
    const r = applied(await w.apply({ kind: 'rebase', onto: 'up' }));
    expect((await g.git('rev-parse', `${r.head}^`)).trim()).toBe(await g.head('up'));
    expect(await g.git('show', '-s', '--format=%s', r.head)).toBe('mine\n');
    applied(await writers.restore(g.dir, r.restorePoint!));
    expect(await g.head()).toBe(head);
  });

  it('aborts a conflicting rebase and declines a dirty tree, touching nothing', async () => {
    const g = await repo([
      { message: 'upstream', files: { 'a.txt': 'up\n' }, branch: 'up' },
      { message: 'mine', files: { 'a.txt': 'mine\n' }, branch: 'main' },
    ]);
    const w = await writerFor(writers, g.dir, 'main');
    const r = await declinedUntouched(g.dir, () => w.apply({ kind: 'rebase', onto: 'up' }), 'conflict');
    expect(r.kind === 'declined' && r.paths).toEqual(['a.txt']);
    await put(g, 'b.txt', 'dirty\n');
    await declinedUntouched(g.dir, () => w.apply({ kind: 'rebase', onto: 'up' }), 'dirty');
  });
});

describe('reset', () => {
  it('hard: captures what it loses, and the restore point brings head, index and files back', async () => {
    const g = await repo([{ message: 'second', files: { 'a.txt': 'a2\n', 's.txt': 's\n' } }]);
    const head = await g.head();
    const first = (await g.git('rev-parse', 'HEAD^')).trim();
    await put(g, 'b.txt', 'b-local\n');
    await put(g, 'c.txt', 'c-staged\n');
    await g.git('add', 'c.txt');
    const before = await snapshot(g.dir);
    const w = await writerFor(writers, g.dir, 'main');
    expect([...value(await w.preview({ kind: 'reset', mode: 'hard', to: first })).paths].sort()).toEqual([
      'a.txt',
      'b.txt',
      'c.txt',
      's.txt',
    ]);
    const r = applied(await w.apply({ kind: 'reset', mode: 'hard', to: first }));
    expect(await g.head()).toBe(first);
    expect(await status(g.dir)).toEqual([]);
    const restored = applied(await writers.restore(g.dir, r.restorePoint!));
    expect(restored).toMatchObject({ op: 'restore', head, previousHead: first });
    const after = JSON.parse(await snapshot(g.dir));
    expect(after.files).toEqual(JSON.parse(before).files);
    expect(after.index).toEqual(JSON.parse(before).index);
    // Restoring took its own point first: restoring that one goes back to the reset state.
    applied(await writers.restore(g.dir, restored.restorePoint!));
    expect(await g.head()).toBe(first);
  });

  it('mixed keeps the files, captures the staged state, and restoring brings the staging back', async () => {
    const g = await repo([{ message: 'second', files: { 'a.txt': 'a2\n' } }]);
    const first = (await g.git('rev-parse', 'HEAD^')).trim();
    await put(g, 'b.txt', 'b-staged\n');
    await g.git('add', 'b.txt');
    const w = await writerFor(writers, g.dir, 'main');
    const r = applied(await w.apply({ kind: 'reset', mode: 'mixed', to: first }));
    expect((await status(g.dir)).sort()).toEqual([' M a.txt', ' M b.txt']);
    applied(await writers.restore(g.dir, r.restorePoint!));
    expect(await status(g.dir)).toEqual(['M  b.txt']);
  });

  it('a restore that would overwrite local changes is declined and leaves no point behind', async () => {
    const g = await repo([{ message: 'second', files: { 'a.txt': 'a2\n' } }]);
    const w = await writerFor(writers, g.dir, 'main');
    await put(g, 'a.txt', 'a3\n');
    const r = applied(await w.apply({ kind: 'commit', message: 'third', paths: ['a.txt'], author }));
    await put(g, 'a.txt', 'edited since\n');
    // Putting the committed path's captured state back would overwrite an edit made since the commit.
    await declinedUntouched(g.dir, () => writers.restore(g.dir, r.restorePoint!), 'dirty');
  });

  it('soft moves only the branch; unchanged target with nothing to lose is declined', async () => {
    const g = await repo([{ message: 'second', files: { 'a.txt': 'a2\n' } }]);
    const first = (await g.git('rev-parse', 'HEAD^')).trim();
    const w = await writerFor(writers, g.dir, 'main');
    await declinedUntouched(
      g.dir,
      async () => w.apply({ kind: 'reset', mode: 'soft', to: await g.head() }),
      'unchanged',
    );
    applied(await w.apply({ kind: 'reset', mode: 'soft', to: first }));
    expect(await status(g.dir)).toEqual(['M  a.txt']);
  });
});

describe('branch', () => {
  it('creates a branch, declines an existing one, and its restore point removes it', async () => {
    const g = await repo();
    const w = await writerFor(writers, g.dir, 'main');
    const r = applied(await w.apply({ kind: 'branch', name: 'feat/x', from: 'main' }));
    expect(await g.head('feat/x')).toBe(await g.head());
    await declinedUntouched(g.dir, () => w.apply({ kind: 'branch', name: 'feat/x', from: 'main' }), 'exists');
    expect(await w.apply({ kind: 'branch', name: '-x', from: 'main' })).toMatchObject({
      ok: false,
      error: { code: 'invalid' },
    });
    applied(await writers.restore(g.dir, r.restorePoint!));
    expect((await g.git('branch', '--list', 'feat/x')).trim()).toBe('');
    expect(await writers.restore(g.dir, 'not-an-id')).toMatchObject({ ok: false, error: { code: 'not_found' } });
  });
});

describe('fingerprint', () => {
  it('an apply bound to a preview runs only while nothing it acts on has changed', async () => {
    const g = await repo([
      { message: 'feature', files: { 'f.txt': 'f\n' }, branch: 'feature' },
      { message: 'back', files: {}, branch: 'main' },
    ]);
    await put(g, 'a.txt', 'seen by the person\n');
    const w = await writerFor(writers, g.dir, 'main');
    const commit = { kind: 'commit' as const, message: 'm', paths: ['a.txt'], author };
    const seen = value(await w.preview(commit)).fingerprint;
    expect(value(await w.preview(commit)).fingerprint).toBe(seen);
    await put(g, 'a.txt', 'changed after the preview\n');
    await declinedUntouched(g.dir, () => w.apply(commit, seen), 'stale');
    // An unrelated change does not make it stale.
    const again = value(await w.preview(commit)).fingerprint;
    await put(g, 'b.txt', 'unrelated\n');
    applied(await w.apply(commit, again));

    const merge = { kind: 'merge' as const, from: 'feature' };
    const m = value(await w.preview(merge)).fingerprint;
    await g.commit({ message: 'feature moves', files: { 'f2.txt': 'x\n' }, branch: 'feature' });
    await g.git('checkout', '-q', 'main');
    await declinedUntouched(g.dir, () => w.apply(merge, m), 'stale');

    const reset = { kind: 'reset' as const, mode: 'hard' as const, to: 'main' };
    const r = value(await w.preview(reset)).fingerprint;
    await put(g, 'c.txt', 'new local work\n');
    await declinedUntouched(g.dir, () => w.apply(reset, r), 'stale');
  });
});

describe('serialisation', () => {
  it('runs concurrent operations on one working tree one after the other', async () => {
    const g = await repo();
    await put(g, 'a.txt', 'a2\n');
    await put(g, 'b.txt', 'b2\n');
    const w = await writerFor(writers, g.dir, 'main');
    const w2 = await writerFor(writers, g.dir, 'main');
    const [x, y] = await Promise.all([
      w.apply({ kind: 'commit', message: 'one', paths: ['a.txt'], author }),
      w2.apply({ kind: 'commit', message: 'two', paths: ['b.txt'], author }),
    ]);
    const one = applied(x);
    const two = applied(y);
    expect(two.previousHead).toBe(one.head);
    expect(await g.head()).toBe(two.head);
    expect(await status(g.dir)).toEqual([]);
  });
});

describe('open', () => {
  it('finds a branch in a linked worktree and not where it is checked out nowhere', async () => {
    const g = await repo([
      { message: 'side', files: { 's.txt': 's\n' }, branch: 'side' },
      { message: 'back', files: {}, branch: 'main' },
    ]);
    const wt = join(g.dir, '..', 'side-wt');
    await g.git('worktree', 'add', '-q', wt, 'side');
    const w = await writerFor(writers, g.dir, 'side');
    await writeFile(join(wt, 's.txt'), 's2\n');
    const r = applied(await w.apply({ kind: 'commit', message: 'in the linked tree', paths: ['s.txt'], author }));
    expect(await g.head('side')).toBe(r.head);
    expect(await status(g.dir)).toEqual([]);
    expect(value(await writers.open(g.dir, 'nowhere'))).toBeUndefined();
  });
});
