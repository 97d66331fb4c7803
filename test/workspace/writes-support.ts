// Shared pieces of the write-port tests: a repository with a dirty working tree, a byte-exact snapshot of everything a
// declined operation must leave alone (refs, index, working-tree files, operation markers), and small git helpers.
import { execFile } from 'node:child_process';
import { lstat, readdir, readFile, readlink } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'vitest';
import type { WsResult } from '../../src/workspace/types.js';
import type { WorkTreeWriter, WorkTreeWriters, WriteOutcome } from '../../src/workspace/writes.js';
import { gitIn } from '../support/gitdir.js';

const run = promisify(execFile);

/** Every file under `dir` except `.git`, as path → content (links as `-> target`, mode bit noted). */
async function files(dir: string, prefix = ''): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const name of (await readdir(join(dir, prefix))).sort()) {
    if (prefix === '' && name === '.git') continue;
    const rel = prefix === '' ? name : `${prefix}/${name}`;
    const st = await lstat(join(dir, rel));
    if (st.isSymbolicLink()) out[rel] = `-> ${await readlink(join(dir, rel))}`;
    else if (st.isDirectory()) Object.assign(out, await files(dir, rel));
    else out[rel] = `${st.mode & 0o111 ? 'x ' : ''}${await readFile(join(dir, rel), 'utf8')}`;
  }
  return out;
}

/** Refs (restore points included), index entries, working-tree files and in-progress markers of a working tree. */
export async function snapshot(dir: string): Promise<string> {
  const refs = await gitIn(dir, ['for-each-ref', '--format=%(refname) %(objectname)']);
  const index = await gitIn(dir, ['ls-files', '-s']);
  const head = await gitIn(dir, ['symbolic-ref', '-q', 'HEAD']).catch(() => 'detached');
  const markers = await gitIn(dir, ['rev-parse', '--git-path', 'MERGE_HEAD', '--git-path', 'rebase-merge']);
  const present: string[] = [];
  for (const m of markers.split('\n').filter(Boolean)) {
    if (
      await lstat(join(dir, m)).then(
        () => true,
        () => false,
      )
    )
      present.push(m);
  }
  return JSON.stringify({ refs, index, head, files: await files(dir), markers: present }, null, 1);
}

/** The porcelain status of a working tree, one line per entry. */
export async function status(dir: string): Promise<string[]> {
  return (await gitIn(dir, ['status', '--porcelain=v1', '--untracked-files=all'])).split('\n').filter(Boolean);
}

/** The value of an ok result (fails the test otherwise). */
export function value<T>(r: WsResult<T>): T {
  if (!r.ok) throw new Error(`expected ok, got ${r.error.code}: ${r.error.message}`);
  return r.value;
}

/** The applied outcome (fails the test otherwise). */
export function applied(r: WsResult<WriteOutcome>): Extract<WriteOutcome, { kind: 'applied' }> {
  const v = value(r);
  if (v.kind !== 'applied') throw new Error(`expected applied, got declined ${v.reason}: ${v.message}`);
  return v;
}

/** Asserts the operation was declined for `reason` and nothing in the tree changed. */
export async function declinedUntouched(
  dir: string,
  act: () => Promise<WsResult<WriteOutcome>>,
  reason: string,
): Promise<WriteOutcome> {
  const before = await snapshot(dir);
  const r = value(await act());
  expect(r).toMatchObject({ kind: 'declined', reason });
  expect(await snapshot(dir)).toBe(before);
  return r;
}

/** Opens the writer for `branch` (fails the test when it is not checked out). */
export async function writerFor(writers: WorkTreeWriters, repo: string, branch: string): Promise<WorkTreeWriter> {
  const w = value(await writers.open(repo, branch));
  if (!w) throw new Error(`${branch} is not checked out`);
  return w;
}

/** Runs a raw git command anywhere (for setting up remotes), hermetic like gitIn. */
export async function rawGit(cwd: string, ...args: string[]): Promise<string> {
  return (
    await run('git', args, {
      cwd,
      env: {
        ...process.env,
        GIT_CONFIG_NOSYSTEM: '1',
        HOME: cwd,
        GIT_AUTHOR_NAME: 't',
        GIT_AUTHOR_EMAIL: 't@t',
        GIT_COMMITTER_NAME: 't',
        GIT_COMMITTER_EMAIL: 't@t',
      },
    })
  ).stdout;
}
