// Exact bytes between the working tree and the object store, for restore points: capturing what an operation would
// lose (index and working tree of some paths) as commits, and putting such a capture back. Files are read and written
// directly (no filters, no line-ending conversion, so a capture round-trips byte for byte), and never through a
// symlinked directory: a path whose parent is a link is treated as absent, as git itself would.
import { constants } from 'node:fs';
import { lstat, mkdir, open, readlink, rename, rm, symlink, writeFile, chmod } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { failed, git, gitOk, nulRecords, unexpected, wsFail, wsOk, type Tree } from './git.js';
import type { StoredContent } from '../../writes.js';
import type { WsResult } from '../../types.js';

/** What is on disk at a repository path, judged without following any link. */
type OnDisk =
  | { kind: 'file'; executable: boolean }
  | { kind: 'symlink'; target: Buffer }
  | { kind: 'directory' }
  | { kind: 'absent' };

/** True when every parent directory of `path` is a real directory of the working tree (no link on the way). */
async function parentsReal(workTree: string, path: string): Promise<boolean> {
  const parts = path.split('/');
  for (let i = 1; i < parts.length; i++) {
    const st = await lstat(join(workTree, ...parts.slice(0, i))).catch(() => undefined);
    if (!st || !st.isDirectory()) return false;
  }
  return true;
}

/** What `path` is on disk. */
async function onDisk(workTree: string, path: string): Promise<OnDisk> {
  if (!(await parentsReal(workTree, path))) return { kind: 'absent' };
  const abs = join(workTree, ...path.split('/'));
  const st = await lstat(abs).catch(() => undefined);
  if (!st) return { kind: 'absent' };
  if (st.isSymbolicLink()) return { kind: 'symlink', target: await readlink(abs, { encoding: 'buffer' }) };
  if (st.isDirectory()) return { kind: 'directory' };
  if (st.isFile()) return { kind: 'file', executable: (st.mode & 0o100) !== 0 };
  return { kind: 'absent' };
}

/**
 * What a commit of `path` would store, judged exactly as `worktreeEntries` judges it (lstat, no link on the way) and
 * read with O_NOFOLLOW, so a content check never reads the file a link points at.
 */
export async function storedContent(tree: Tree, path: string, maxBytes: number): Promise<StoredContent> {
  const d = await onDisk(tree.workTree, path);
  switch (d.kind) {
    case 'absent':
    case 'directory':
      return { kind: 'absent', path };
    case 'symlink':
      return { kind: 'symlink', path, target: new Uint8Array(d.target) };
    case 'file': {
      const fh = await open(join(tree.workTree, ...path.split('/')), constants.O_RDONLY | constants.O_NOFOLLOW).catch(
        () => undefined,
      );
      if (fh === undefined) return { kind: 'absent', path };
      try {
        const st = await fh.stat();
        if (!st.isFile()) return { kind: 'absent', path };
        if (st.size > maxBytes) return { kind: 'too_large', path, size: st.size };
        const buf = Buffer.alloc(st.size);
        const { bytesRead } = await fh.read(buf, 0, st.size, 0);
        return { kind: 'file', path, bytes: new Uint8Array(buf.buffer, buf.byteOffset, bytesRead) };
      } finally {
        await fh.close();
      }
    }
    default:
      return d satisfies never;
  }
}

const zeroId = (head: string): string => '0'.repeat(head.length);

/** Runs `fn` with a scratch index file that is removed afterwards. */
export async function withTempIndex<T>(fn: (env: Record<string, string>) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), 'gb-index-'));
  try {
    return await fn({ GIT_INDEX_FILE: join(dir, 'index') });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * Stage-0 index-info lines (`mode sha\tpath`) for the working-tree state of `paths`; blobs are written unless `hashOnly`
 * (a fingerprint needs the ids, not the objects).
 */
export async function worktreeEntries(
  tree: Tree,
  paths: readonly string[],
  head: string,
  hashOnly = false,
): Promise<WsResult<string[]>> {
  const w = hashOnly ? [] : ['-w'];
  const lines: string[] = [];
  const files: string[] = [];
  const modes: string[] = [];
  for (const p of paths) {
    const d = await onDisk(tree.workTree, p);
    switch (d.kind) {
      case 'absent':
        lines.push(`0 ${zeroId(head)}\t${p}`);
        break;
      case 'directory':
        // A directory (a submodule checkout, or a path now holding files) keeps HEAD's entry.
        break;
      case 'symlink': {
        const blob = await gitOk(tree, ['hash-object', ...w, '--stdin'], 'capturing a link', { input: d.target });
        if (!blob.ok) return blob;
        lines.push(`120000 ${blob.value.toString('utf8').trim()}\t${p}`);
        break;
      }
      case 'file':
        files.push(p);
        modes.push(d.executable ? '100755' : '100644');
        break;
      default:
        return d satisfies never;
    }
  }
  // One process for the lot; a name with a line break (never one an agent sent) is hashed on its own.
  const batch = files.filter((p) => !p.includes('\n'));
  if (batch.length > 0) {
    const run = await gitOk(tree, ['hash-object', ...w, '--no-filters', '--stdin-paths'], 'capturing files', {
      input: batch.join('\n') + '\n',
    });
    if (!run.ok) return run;
    const ids = run.value
      .toString('utf8')
      .split('\n')
      .filter((s) => s !== '');
    if (ids.length !== batch.length) return wsFail('unavailable', 'git failed while capturing files; try again later.');
    batch.forEach((p, i) => lines.push(`${modes[files.indexOf(p)]} ${ids[i]}\t${p}`));
  }
  for (const p of files.filter((f) => f.includes('\n'))) {
    const one = await gitOk(tree, ['hash-object', ...w, '--no-filters', '--', p], 'capturing a file');
    if (!one.ok) return one;
    lines.push(`${modes[files.indexOf(p)]} ${one.value.toString('utf8').trim()}\t${p}`);
  }
  return wsOk(lines);
}

/**
 * Stage-0 index-info lines for `paths` as an index has them (the real one, or the scratch one `env` names); absent or
 * conflicted paths become removals.
 */
export async function indexEntries(
  tree: Tree,
  paths: readonly string[],
  head: string,
  env: Record<string, string> = {},
): Promise<WsResult<string[]>> {
  // The whole listing, filtered here: a reset can concern more paths than an argv holds.
  const run = await gitOk(tree, ['ls-files', '-s', '-z'], 'reading the index', { env });
  if (!run.ok) return run;
  const wanted = new Set(paths);
  const found = new Map<string, string>();
  for (const rec of nulRecords(run.value)) {
    const m = /^(\d+) ([0-9a-f]+) (\d)\t(.*)$/s.exec(rec);
    if (m && m[3] === '0' && wanted.has(m[4]!)) found.set(m[4]!, `${m[1]} ${m[2]}\t${m[4]}`);
  }
  return wsOk(paths.map((p) => found.get(p) ?? `0 ${zeroId(head)}\t${p}`));
}

/** A tree: `base`'s with the given index-info lines applied, built in a scratch index. */
async function treeWith(tree: Tree, base: string, lines: readonly string[]): Promise<WsResult<string>> {
  return withTempIndex(async (env) => {
    const read = await gitOk(tree, ['read-tree', base], 'building a tree', { env });
    if (!read.ok) return read;
    if (lines.length > 0) {
      const info = await gitOk(tree, ['update-index', '-z', '--index-info'], 'building a tree', {
        env,
        input: lines.join('\0') + '\0',
      });
      if (!info.ok) return info;
    }
    const written = await gitOk(tree, ['write-tree'], 'building a tree', { env });
    return written.ok ? wsOk(written.value.toString('utf8').trim()) : written;
  });
}

/** Writes a commit object (never a ref) with git-blinder as author and committer. */
export async function commitTree(
  tree: Tree,
  treeId: string,
  parents: readonly string[],
  message: string,
  env: Record<string, string> = {},
): Promise<WsResult<string>> {
  const args = ['commit-tree', ...parents.flatMap((p) => ['-p', p]), treeId];
  const run = await gitOk(tree, args, 'writing a commit', { input: message, env });
  return run.ok ? wsOk(run.value.toString('utf8').trim()) : run;
}

/**
 * Captures the index and working-tree state of `paths` like a stash: an index commit (parent `head`) and a working-tree
 * commit (parents `head` and the index commit) that carries `message`. Returns the working-tree commit.
 */
export async function capture(
  tree: Tree,
  head: string,
  paths: readonly string[],
  message: string,
): Promise<WsResult<string>> {
  const idx = await indexEntries(tree, paths, head);
  if (!idx.ok) return idx;
  const iTree = await treeWith(tree, head, idx.value);
  if (!iTree.ok) return iTree;
  const iCommit = await commitTree(tree, iTree.value, [head], 'git-blinder: index of captured paths\n');
  if (!iCommit.ok) return iCommit;
  const wt = await worktreeEntries(tree, paths, head);
  if (!wt.ok) return wt;
  const wTree = await treeWith(tree, head, wt.value);
  if (!wTree.ok) return wTree;
  return commitTree(tree, wTree.value, [head, iCommit.value], message);
}

/** `mode`, `id` of each of `paths` that exists in `commit` (exact paths only, never a directory's contents). */
async function entriesIn(
  tree: Tree,
  commit: string,
  paths: readonly string[],
): Promise<WsResult<Map<string, { mode: string; id: string }>>> {
  const run = await git(tree, ['ls-tree', '-r', '-z', '--full-tree', commit]);
  if (failed(run)) return run;
  if (run.code !== 0) return unexpected(tree, run, 'reading a commit');
  const out = new Map<string, { mode: string; id: string }>();
  const wanted = new Set(paths);
  for (const rec of nulRecords(run.stdout)) {
    const m = /^(\d+) \w+ ([0-9a-f]+)\t(.*)$/s.exec(rec);
    if (m && wanted.has(m[3]!)) out.set(m[3]!, { mode: m[1]!, id: m[2]! });
  }
  return wsOk(out);
}

/** Replaces whatever is at `path` with a blob's bytes (or link), creating real parent directories as needed. */
async function writeEntry(tree: Tree, path: string, entry: { mode: string; id: string }): Promise<WsResult<void>> {
  if (entry.mode === '160000') return wsOk(undefined);
  const blob = await gitOk(tree, ['cat-file', 'blob', entry.id], 'reading a captured file');
  if (!blob.ok) return blob;
  const abs = join(tree.workTree, ...path.split('/'));
  const parts = path.split('/');
  for (let i = 1; i < parts.length; i++) {
    const dir = join(tree.workTree, ...parts.slice(0, i));
    const st = await lstat(dir).catch(() => undefined);
    if (st && !st.isDirectory()) await rm(dir, { force: true });
    if (!st || !st.isDirectory()) await mkdir(dir);
  }
  const tmp = join(dirname(abs), `.gb-restore-${randomBytes(6).toString('hex')}`);
  if (entry.mode === '120000') await symlink(blob.value, tmp);
  else {
    await writeFile(tmp, blob.value, { flag: 'wx' });
    await chmod(tmp, entry.mode === '100755' ? 0o755 : 0o644);
  }
  const st = await lstat(abs).catch(() => undefined);
  if (st?.isDirectory()) await rm(abs, { recursive: true, force: true });
  await rename(tmp, abs);
  return wsOk(undefined);
}

/** Sets the real index entries of `paths` to `lines` (index-info, stage 0); paths without a line are removed. */
export async function setIndex(
  tree: Tree,
  paths: readonly string[],
  lines: readonly string[],
  anyId: string,
): Promise<WsResult<void>> {
  // Remove every stage first (a conflicted path has three), then add the wanted stage-0 entries.
  const removals = paths.map((p) => `0 ${zeroId(anyId)}\t${p}`);
  const kept = lines.filter((l) => !l.startsWith('0 '));
  const info = await gitOk(tree, ['update-index', '-z', '--index-info'], 'updating the index', {
    input: [...removals, ...kept].join('\0') + '\0',
  });
  return info.ok ? wsOk(undefined) : info;
}

/**
 * Puts `paths` back as `indexFrom` (index) and `worktreeFrom` (working tree) have them: present entries are written,
 * absent ones removed. Only the named paths are touched.
 */
export async function materialize(
  tree: Tree,
  paths: readonly string[],
  indexFrom: string,
  worktreeFrom: string,
): Promise<WsResult<void>> {
  if (paths.length === 0) return wsOk(undefined);
  // Resolved first: the removal lines need an all-zero id of the repository's hash length.
  const ids = await gitOk(
    tree,
    ['rev-parse', '--verify', '--end-of-options', `${indexFrom}^{commit}`],
    'reading a restore point',
  );
  if (!ids.ok) return ids;
  const anyId = ids.value.toString('utf8').trim();
  const inIndex = await entriesIn(tree, indexFrom, paths);
  if (!inIndex.ok) return inIndex;
  const inTree = await entriesIn(tree, worktreeFrom, paths);
  if (!inTree.ok) return inTree;
  const lines = paths.flatMap((p) => {
    const e = inIndex.value.get(p);
    return e ? [`${e.mode} ${e.id}\t${p}`] : [];
  });
  const set = await setIndex(tree, paths, lines, anyId);
  if (!set.ok) return set;
  for (const p of paths) {
    const want = inTree.value.get(p);
    if (!(await parentsReal(tree.workTree, p))) {
      if (want === undefined) continue;
    }
    if (want) {
      const w = await writeEntry(tree, p, want);
      if (!w.ok) return w;
    } else {
      const d = await onDisk(tree.workTree, p);
      if (d.kind === 'file' || d.kind === 'symlink') await rm(join(tree.workTree, ...p.split('/')), { force: true });
    }
  }
  // The index's stat data for rewritten files is stale; a refresh keeps status from reading them as modified.
  await git(tree, ['update-index', '-q', '--refresh']);
  return wsOk(undefined);
}
