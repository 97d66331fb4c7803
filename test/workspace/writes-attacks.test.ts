// Attacks on the write adapter through the working tree itself: symlinked directories that would lead a capture,
// a discard or a restore outside the tree, and patches that name paths outside it or inside .git. Nothing outside
// the working tree is read into a restore point or written, and nothing in .git changes.
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createWorkTreeWriters } from '../../src/workspace/localfs/writes/index.js';
import { makeRepo, type GitDir } from '../support/gitdir.js';
import { applied, declinedUntouched, value, writerFor } from './writes-support.js';

const writers = createWorkTreeWriters({ timeoutMs: 30_000 });
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

/** A repository and, next to it, an outside directory holding `secret.txt`. */
async function setup(): Promise<{ g: GitDir; outside: string }> {
  const g = await makeRepo([{ message: 'root', files: { 'a.txt': 'a\n', 'd/e.txt': 'e\n' } }]);
  const outside = await mkdtemp(join(tmpdir(), 'gb-outside-'));
  await writeFile(join(outside, 'secret.txt'), 'outside secret\n');
  await writeFile(join(outside, 'e.txt'), 'outside e\n');
  cleanups.push(
    () => g.cleanup(),
    () => rm(outside, { recursive: true, force: true }),
  );
  return { g, outside };
}

describe('write attacks through the working tree', () => {
  it('a capture never reads through a symlinked directory', async () => {
    const { g, outside } = await setup();
    await symlink(outside, join(g.dir, 'link'));
    const w = await writerFor(writers, g.dir, 'main');
    // Nothing of the repository lives at link/secret.txt: there is nothing to discard, and nothing was read.
    await declinedUntouched(g.dir, () => w.apply({ kind: 'discard', paths: ['link/secret.txt'] }), 'unchanged');
    await declinedUntouched(
      g.dir,
      () => w.apply({ kind: 'commit', message: 'm', paths: ['link/secret.txt'], author: { name: 'a', email: 'a@a' } }),
      'unchanged',
    );
    await writeFile(join(g.dir, 'a.txt'), 'a2\n');
    const r = applied(await w.apply({ kind: 'reset', mode: 'hard', to: await g.head() }));
    const tree = await g.git('ls-tree', '-r', '--name-only', `refs/git-blinder/restore/${r.restorePoint}`);
    expect(tree).not.toContain('secret');
    expect(await g.git('show', `refs/git-blinder/restore/${r.restorePoint}:a.txt`)).toBe('a2\n');
  });

  it('a restore never writes through a directory that became a symlink', async () => {
    const { g, outside } = await setup();
    await writeFile(join(g.dir, 'd/e.txt'), 'e-local\n');
    const w = await writerFor(writers, g.dir, 'main');
    const r = applied(await w.apply({ kind: 'discard', paths: ['d/e.txt'] }));
    await rm(join(g.dir, 'd'), { recursive: true });
    await symlink(outside, join(g.dir, 'd'));
    // The point's path changed since (its directory is now a link): the restore declines as dirty, writes nothing,
    // and above all nothing through the link (issue 20 §4: a restore never overwrites what changed since).
    await declinedUntouched(g.dir, () => writers.restore(g.dir, r.restorePoint!), 'dirty');
    expect(await readFile(join(outside, 'e.txt'), 'utf8')).toBe('outside e\n');
    expect((await readdir(outside)).sort()).toEqual(['e.txt', 'secret.txt']);
  });

  it('patches naming paths outside the tree, inside .git or beyond a symlink are declined', async () => {
    const { g, outside } = await setup();
    await symlink(outside, join(g.dir, 'link'));
    await mkdir(join(g.dir, 'sub'), { recursive: true });
    const w = await writerFor(writers, g.dir, 'main');
    const create = (p: string) =>
      `diff --git a/${p} b/${p}\nnew file mode 100644\n--- /dev/null\n+++ b/${p}\n@@ -0,0 +1 @@\n+pwned\n`;
    for (const p of [
      '../escape.txt',
      '.git/hooks/pre-commit',
      'link/new.txt',
      'sub/../../escape2.txt',
      '.GIT/config',
    ]) {
      await declinedUntouched(g.dir, () => w.apply({ kind: 'patch', patch: Buffer.from(create(p)) }), 'does_not_apply');
    }
    expect((await readdir(outside)).sort()).toEqual(['e.txt', 'secret.txt']);
    expect(await readdir(join(g.dir, '..'))).not.toContain('escape.txt');
    // The preview of such a patch names the path as sent, so the policy refuses it before any approval.
    expect(value(await w.preview({ kind: 'patch', patch: Buffer.from(create('../escape.txt')) })).paths).toEqual([
      '../escape.txt',
    ]);
  });
});
