// Push of the write port: the bound branch to its upstream on a local remote, fast-forward only, never forced, and
// no other remote kind (no network, no transport helper).
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createWorkTreeWriters } from '../../src/workspace/localfs/writes/index.js';
import { makeRepo, type GitDir } from '../support/gitdir.js';
import { applied, declinedUntouched, rawGit, value, writerFor } from './writes-support.js';

const writers = createWorkTreeWriters({ timeoutMs: 30_000 });
const author = { name: 'A', email: 'a@example.test' };
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

/** A repository whose main tracks origin/main on a bare remote next to it. */
async function withRemote(): Promise<{ g: GitDir; remote: string }> {
  const g = await makeRepo([{ message: 'root', files: { 'a.txt': 'a\n' } }]);
  const root = await mkdtemp(join(tmpdir(), 'gb-remote-'));
  cleanups.push(
    () => g.cleanup(),
    () => rm(root, { recursive: true, force: true }),
  );
  const remote = join(root, 'remote.git');
  await rawGit(root, 'clone', '-q', '--bare', g.dir, remote);
  await g.git('remote', 'add', 'origin', remote);
  await g.git('fetch', '-q', 'origin');
  await g.git('branch', '-q', '--set-upstream-to=origin/main', 'main');
  return { g, remote };
}

async function commitLocally(g: GitDir, text: string): Promise<string> {
  await writeFile(join(g.dir, 'a.txt'), text);
  const w = await writerFor(writers, g.dir, 'main');
  return applied(await w.apply({ kind: 'commit', message: text, paths: ['a.txt'], author })).head;
}

describe('push', () => {
  it('pushes the bound branch to its upstream, previews the paths, and declines when up to date', async () => {
    const { g, remote } = await withRemote();
    const head = await commitLocally(g, 'a2\n');
    const w = await writerFor(writers, g.dir, 'main');
    expect(value(await w.preview({ kind: 'push' }))).toMatchObject({ paths: ['a.txt'], exact: true });
    const r = applied(await w.apply({ kind: 'push' }));
    expect(r).toMatchObject({ op: 'push', head, restorePoint: null });
    expect((await rawGit(remote, 'rev-parse', 'refs/heads/main')).trim()).toBe(head);
    await declinedUntouched(g.dir, () => w.apply({ kind: 'push' }), 'unchanged');
  });

  it('never forces: a remote that moved on declines the push and keeps its commit', async () => {
    const { g, remote } = await withRemote();
    const other = await mkdtemp(join(tmpdir(), 'gb-other-'));
    cleanups.push(() => rm(other, { recursive: true, force: true }));
    await rawGit(other, 'clone', '-q', remote, 'c');
    await writeFile(join(other, 'c', 'b.txt'), 'theirs\n');
    await rawGit(join(other, 'c'), 'add', 'b.txt');
    await rawGit(join(other, 'c'), 'commit', '-q', '-m', 'theirs');
    await rawGit(join(other, 'c'), 'push', '-q', 'origin', 'main');
    const theirs = (await rawGit(remote, 'rev-parse', 'refs/heads/main')).trim();
    await commitLocally(g, 'mine\n');
    const w = await writerFor(writers, g.dir, 'main');
    expect(value(await w.apply({ kind: 'push' }))).toMatchObject({ kind: 'declined', reason: 'not_fast_forward' });
    expect((await rawGit(remote, 'rev-parse', 'refs/heads/main')).trim()).toBe(theirs);
  });

  it('declines without an upstream, or with an upstream that is not a local path', async () => {
    const g = await makeRepo([{ message: 'root', files: { 'a.txt': 'a\n' } }]);
    cleanups.push(() => g.cleanup());
    const w = await writerFor(writers, g.dir, 'main');
    await declinedUntouched(g.dir, () => w.apply({ kind: 'push' }), 'no_upstream');
    await g.git('remote', 'add', 'origin', 'https://example.invalid/repo.git');
    await g.git('config', 'branch.main.remote', 'origin');
    await g.git('config', 'branch.main.merge', 'refs/heads/main');
    await declinedUntouched(g.dir, () => w.apply({ kind: 'push' }), 'no_upstream');
    await g.git('remote', 'set-url', 'origin', 'ext::sh -c touch% /tmp/gb-pwned');
    await declinedUntouched(g.dir, () => w.apply({ kind: 'push' }), 'no_upstream');
  });
});
