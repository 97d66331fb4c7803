// One atomic commit on a branch, built in a temporary index from the object database and published with a
// compare-and-swap on the ref. Rebuilt on a moved head only when the move touched none of the written paths.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { normalizePath } from '../../core/path.js';
import type { WriteRequest, WriteResult, WrittenFile } from '../types.js';
import { fail, gitFailure, ok, type Failed } from './errors.js';
import { runGit } from '../../gitcli/run.js';
import { branchHead } from './refs.js';
import { treeChanges } from './log.js';
import { rootTree } from './tree.js';
import type { Repo } from './repo.js';
import { findCheckout, moveCheckout } from './worktree.js';

/** Rebuilds attempted after the first try before giving up with `conflict`. */
export const MAX_RETRIES = 5;

const COMMITTER = { name: 'git-blinder', email: 'git-blinder@localhost' };
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const MOVED = 'The branch moved and touched the same files; read them again and retry.';

/** Seam for tests and operators: runs after the commit object exists, just before the compare-and-swap. */
export interface WriteHooks {
  beforeUpdateRef?(info: { repo: string; branch: string; parent: string; attempt: number }): Promise<void>;
}

interface Prepared {
  readonly writes: ReadonlyArray<{ path: string; bytes: Buffer }>;
  readonly deletes: readonly string[];
  readonly message: string;
  readonly author: { name: string; email: string };
}

/** Checks the request's shape: paths, encodings, identity. */
function prepare(req: WriteRequest): { ok: true; value: Prepared } | Failed {
  if (typeof req.message !== 'string' || req.message.trim() === '')
    return fail('invalid', 'A commit message is required.');
  const seen = new Set<string>();
  const writes: Array<{ path: string; bytes: Buffer }> = [];
  for (const f of req.files) {
    const p = normalizePath(f.path);
    if (!p.ok || p.value === '') return fail('invalid', `Not a valid file path: ${String(f.path)}`);
    if (seen.has(p.value)) return fail('invalid', `The same path is written twice: ${p.value}`);
    seen.add(p.value);
    if (f.encoding === 'base64') {
      const b64 = f.content.replace(/\s+/g, '');
      if (!BASE64.test(b64) || b64.length % 4 === 1) return fail('invalid', `Content is not valid base64: ${p.value}`);
      writes.push({ path: p.value, bytes: Buffer.from(b64, 'base64') });
    } else if (f.encoding === 'utf-8') writes.push({ path: p.value, bytes: Buffer.from(f.content, 'utf8') });
    else return fail('invalid', `Unknown encoding for ${p.value}`);
  }
  for (const w of writes) {
    const parts = w.path.split('/');
    if (parts.slice(1).some((_, i) => seen.has(parts.slice(0, i + 1).join('/')))) {
      return fail('invalid', `Cannot write ${w.path}: a file and a directory cannot share a path.`);
    }
  }
  const deletes: string[] = [];
  for (const d of req.deletes) {
    const p = normalizePath(d);
    if (!p.ok || p.value === '') return fail('invalid', `Not a valid file path: ${String(d)}`);
    if (seen.has(p.value)) return fail('invalid', `A path is both written and deleted: ${p.value}`);
    deletes.push(p.value);
  }
  const author = req.author ?? COMMITTER;
  if (/[<>\n\0]/.test(author.name + author.email) || author.name.trim() === '' || author.email.trim() === '') {
    return fail('invalid', 'The author needs a name and an email without <, > or line breaks.');
  }
  const message = req.message.endsWith('\n') ? req.message : `${req.message}\n`;
  return ok({ writes, deletes, message, author });
}

/** Writes each file's bytes as a blob; returns path → blob id. */
async function writeBlobs(
  repo: Repo,
  writes: Prepared['writes'],
): Promise<{ ok: true; value: Map<string, string> } | Failed> {
  const ids = new Map<string, string>();
  for (const w of writes) {
    const run = await runGit(['hash-object', '-w', '--no-filters', '--stdin'], { ...repo.call, input: w.bytes });
    if (run.code !== 0) return gitFailure(run, 'writing a file', repo.log);
    ids.set(w.path, run.stdout.toString('utf8').trim());
  }
  return ok(ids);
}

/**
 * Builds the new tree on top of `head` in a throwaway index. `--index-info` replaces what is in the way (a
 * directory under a written file, a file above one), as GitHub's Git Data API does; whether that may land is
 * judged on the computed change (`changedPaths`), never here.
 */
async function buildTree(
  repo: Repo,
  head: string,
  req: Prepared,
  blobs: Map<string, string>,
): Promise<{ ok: true; value: string } | Failed> {
  // The modes of the named paths come from the head's tree objects through the reader (no `ls-files` process):
  // only they matter, and the index read-tree builds holds exactly the head's files.
  const root = await rootTree(repo, head);
  if (!root) throw new Error('a resolved commit has no tree');
  const modes = new Map<string, string>();
  for (const path of [...req.deletes, ...req.writes.map((w) => w.path)]) {
    const e = await repo.trees.lookup(root, path.split('/'));
    if (e && e.mode !== '040000') modes.set(path, e.mode);
  }
  const dir = await mkdtemp(join(tmpdir(), 'gb-index-'));
  const call = { ...repo.call, env: { GIT_INDEX_FILE: join(dir, 'index') } };
  try {
    const read = await runGit(['read-tree', head], call);
    if (read.code !== 0) return gitFailure(read, 'preparing a commit', repo.log);
    const lines: string[] = [];
    const zero = '0'.repeat(head.length);
    // A missing path is skipped without a trace; a directory path is not a file and is skipped the same way.
    for (const d of req.deletes) {
      if (modes.delete(d)) lines.push(`0 ${zero}\t${d}`);
    }
    for (const w of req.writes) {
      const mode = modes.get(w.path) === '100755' ? '100755' : '100644';
      lines.push(`${mode} ${blobs.get(w.path)}\t${w.path}`);
    }
    if (lines.length > 0) {
      const upd = await runGit(['update-index', '-z', '--index-info'], {
        ...call,
        input: lines.map((l) => `${l}\0`).join(''),
      });
      if (upd.code !== 0) return gitFailure(upd, 'preparing a commit', repo.log);
    }
    const tree = await runGit(['write-tree'], call);
    if (tree.code !== 0) return gitFailure(tree, 'preparing a commit', repo.log);
    return ok(tree.stdout.toString('utf8').trim());
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Every path that differs between the trees of `base` and `tree`, files only (a replaced directory lists its files). */
async function changedPaths(repo: Repo, base: string, tree: string): Promise<{ ok: true; value: string[] } | Failed> {
  // What `diff-tree -r --name-only --no-renames base tree` prints, compared through the reader (no process).
  const root = await rootTree(repo, base);
  if (!root) throw new Error('a resolved commit has no tree');
  return ok(await treeChanges(repo, root, tree));
}

/** The one answer when the caller's `admit` refuses a computed change (the caller words the refusal). */
const REFUSED: Failed = fail('invalid', 'The write was refused: it would change paths the caller did not admit.');

async function makeCommit(
  repo: Repo,
  tree: string,
  parent: string,
  req: Prepared,
): Promise<{ ok: true; value: string } | Failed> {
  const run = await runGit(['commit-tree', tree, '-p', parent, '-F', '-'], {
    ...repo.call,
    input: req.message,
    env: {
      GIT_AUTHOR_NAME: req.author.name,
      GIT_AUTHOR_EMAIL: req.author.email,
      GIT_COMMITTER_NAME: COMMITTER.name,
      GIT_COMMITTER_EMAIL: COMMITTER.email,
    },
  });
  if (run.code !== 0) return gitFailure(run, 'creating a commit', repo.log);
  return ok(run.stdout.toString('utf8').trim());
}

/**
 * The one refusal for a checked-out branch whose working tree cannot take the commit. It names only the caller's own
 * paths and reads the same whether a path is modified, untracked, ignored, or (for the other paths) untouched.
 */
const UNCOMMITTED = (paths: readonly string[]): Failed => {
  const shown =
    paths
      .slice(0, 20)
      .map((p) => `"${p}"`)
      .join(', ') + (paths.length > 20 ? ` and ${paths.length - 20} more` : '');
  return fail(
    'conflict',
    `The branch is checked out in a working tree that holds uncommitted work at ${shown} (or below ${paths.length === 1 ? 'it' : 'them'}); nothing was written. Write other paths, or ask the operator to commit or move that work.`,
  );
};

/**
 * True when the branch's move from `from` to `to` changed any of `paths` (prefixes; `''` = anything), or when `to` no
 * longer contains `from` (a rewritten branch: what changed cannot be told from a tree diff alone).
 */
async function movedSince(
  repo: Repo,
  from: string,
  to: string,
  paths: readonly string[],
): Promise<{ ok: true; value: boolean } | Failed> {
  if (paths.length === 0) return ok(false);
  const anc = await runGit(['merge-base', '--is-ancestor', from, to], repo.call);
  if (anc.code === 1) return ok(true);
  if (anc.code !== 0) return gitFailure(anc, 'checking what moved', repo.log);
  const spec = paths.includes('') ? [] : ['--', ...paths];
  const moved = await runGit(['diff-tree', '-r', '--name-only', '--no-renames', '-z', from, to, ...spec], repo.call);
  if (moved.code !== 0) return gitFailure(moved, 'checking what moved', repo.log);
  return ok(moved.stdout.length > 0);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Creates one commit on `branch` with the requested changes (always a new commit, even with an unchanged tree). */
export async function commitFiles(
  repo: Repo,
  branch: string,
  request: WriteRequest,
  hooks: WriteHooks,
): Promise<{ ok: true; value: WriteResult } | Failed> {
  const req = prepare(request);
  if (!req.ok) return req;
  // branchHead checks the name with the rules of `git check-ref-format` (a stricter subset), without a process.
  let head = await branchHead(repo, branch);
  if (!head.ok) return head;
  const checkout = await findCheckout(repo, branch);
  if (!checkout.ok) return checkout;
  const blobs = await writeBlobs(repo, req.value.writes);
  if (!blobs.ok) return blobs;
  const touched = [...req.value.writes.map((w) => w.path), ...req.value.deletes];
  // Paths whose change since the content was computed refuses the write (the caller's base, and always our own).
  const guarded = [...touched, ...(request.base?.unchanged ?? [])];
  const written: WrittenFile[] = req.value.writes.map((w) => ({
    path: w.path,
    sha: blobs.value.get(w.path) ?? '',
    size: w.bytes.byteLength,
  }));
  if (request.base !== undefined && request.base.head !== head.value) {
    const since = await movedSince(repo, request.base.head, head.value, guarded);
    if (!since.ok) return since;
    if (since.value) return fail('conflict', MOVED);
  }
  let retries = 0;
  for (let attempt = 0; attempt <= MAX_RETRIES * 2; attempt++) {
    const old = head.value;
    const tree = await buildTree(repo, old, req.value, blobs.value);
    if (!tree.ok) return tree;
    if (request.admit) {
      const changed = await changedPaths(repo, old, tree.value);
      if (!changed.ok) return changed;
      if (!request.admit(changed.value)) return REFUSED;
    }
    const commit = await makeCommit(repo, tree.value, old, req.value);
    if (!commit.ok) return commit;
    await hooks.beforeUpdateRef?.({ repo: repo.name, branch, parent: old, attempt });
    const co = checkout.value;
    if (co && !(await moveCheckout(repo, co, old, commit.value))) return UNCOMMITTED(touched);
    const cas = await runGit(
      ['update-ref', '-m', 'git-blinder: commit', `refs/heads/${branch}`, commit.value, old],
      repo.call,
    );
    if (cas.code === 0) return ok({ sha: commit.value, branch, parent: old, retries, files: written });
    if (co && !(await moveCheckout(repo, co, commit.value, old))) {
      throw new Error(`could not roll back the working tree of ${branch} after a failed ref update`);
    }
    head = await branchHead(repo, branch);
    if (!head.ok) return head;
    if (head.value === old) {
      // The ref did not move: another writer held its lock. Wait a little and try the same parent again.
      repo.log('debug', 'ref update failed without a move; retrying', { branch, stderr: cas.stderr.slice(0, 500) });
      await sleep(20 * (attempt + 1));
      continue;
    }
    const since = await movedSince(repo, old, head.value, guarded);
    if (!since.ok) return since;
    if (since.value) return fail('conflict', MOVED);
    retries += 1;
    if (retries > MAX_RETRIES) break;
  }
  return fail('conflict', 'The branch kept moving while writing; try again.');
}
