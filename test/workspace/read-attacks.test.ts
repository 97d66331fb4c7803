// Disk reads an agent could aim at the repository's own files or outside the working tree: links into `.git`, links
// to the root or above, absolute links (even ones pointing back inside), case variants of `.git`, a FIFO that would
// block a reader, and a file swapped for a link. None may yield bytes from outside the tree or from `.git`.
import { execFileSync } from 'node:child_process';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createLocalWorkspace } from '../../src/workspace/localfs/index.js';
import type { WorkTree } from '../../src/workspace/types.js';
import { makeRepo, type GitDir } from '../support/gitdir.js';

let repo: GitDir;
let wt: WorkTree;

beforeAll(async () => {
  repo = await makeRepo([{ message: 'init', files: { 'a.txt': 'a\n', 'dir/b.txt': 'b\n' } }]);
  const d = repo.dir;
  await symlink('.git/config', join(d, 'cfg'));
  await symlink('.git', join(d, 'g'));
  await symlink('dir/../.git/HEAD', join(d, 'head-via-dir'));
  await symlink('.', join(d, 'self'));
  await symlink('..', join(d, 'up'));
  await symlink(join(d, 'a.txt'), join(d, 'abs-inside'));
  await symlink('/etc/passwd', join(d, 'abs-outside'));
  await symlink('../work/a.txt', join(d, 'out-and-back'));
  await mkdir(join(d, 'nest'));
  await symlink('../../outside.txt', join(d, 'nest/deep-out'));
  await writeFile(join(d, '..', 'outside.txt'), 'outside\n');
  execFileSync('mkfifo', [join(d, 'fifo')]);
  const opened = await createLocalWorkspace().open(d, 'main');
  if (!opened.ok || !opened.value) throw new Error('main is checked out');
  wt = opened.value;
}, 30_000);

afterAll(async () => {
  await repo?.cleanup();
});

async function read(path: string): Promise<unknown> {
  const r = await wt.readFile(path, 1 << 20);
  if (!r.ok) return r.error.code;
  return r.value.kind === 'unresolvable' ? `unresolvable:${r.value.reason}` : r.value.kind;
}

it("never reads the repository's own files, through a link or a case variant", async () => {
  expect(await read('cfg')).toBe('unresolvable:outside');
  expect(await read('g/config')).toBe('unresolvable:outside');
  expect(await read('head-via-dir')).toBe('unresolvable:outside');
  expect(await read('self/.git/config')).toBe('unresolvable:outside');
  for (const p of ['.git/config', '.GIT/config', '.Git/HEAD', 'dir/.git']) expect(await read(p), p).toBe('missing');
});

it('never leaves the working tree, whatever the link looks like', async () => {
  expect(await read('up/outside.txt')).toBe('unresolvable:outside');
  expect(await read('abs-outside')).toBe('unresolvable:outside');
  // Absolute and climbing links are refused even when they would land back inside: the rule stays simple.
  expect(await read('abs-inside')).toBe('unresolvable:outside');
  expect(await read('out-and-back')).toBe('unresolvable:outside');
  expect(await read('nest/deep-out')).toBe('unresolvable:outside');
  // A link naming the root itself is refused too (core resolveLinkTarget): nothing is reached through it.
  expect(await read('self/a.txt')).toBe('unresolvable:outside');
  // The same file, reached without links, reads.
  expect(await read('a.txt')).toBe('file');
});

it('does not block on a FIFO and does not list it as a file', async () => {
  expect(await read('fifo')).toBe('missing');
});
