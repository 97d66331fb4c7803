// Tree listings from the object database (`git ls-tree -z`), never from a working tree.
import type { EntryType, TreeEntry } from '../../core/model.js';
import type { TreeListing } from '../types.js';
import { fail, gitFailure, ok, type Failed } from './errors.js';
import { runGit } from '../../gitcli/run.js';
import type { Repo } from './repo.js';
import { isTreePath } from './paths.js';

/** One `ls-tree -l -z` record with its mode kept (symlinks and submodules are told apart by mode). */
export interface RawEntry {
  readonly mode: string;
  readonly path: string;
  readonly type: EntryType;
  readonly sha: string;
  readonly size?: number;
}

/** Maps a tree entry mode to what an agent sees. */
export function entryType(mode: string): EntryType {
  if (mode === '040000') return 'dir';
  if (mode === '120000') return 'symlink';
  if (mode === '160000') return 'submodule';
  return 'file';
}

/** Parses `git ls-tree -l -z` output: `<mode> <type> <sha> <size>\t<path>\0`, prefixing every path with `prefix`. */
export function parseLsTree(out: Buffer, prefix = ''): RawEntry[] {
  const entries: RawEntry[] = [];
  for (const rec of out.toString('utf8').split('\0')) {
    if (rec === '') continue;
    const tab = rec.indexOf('\t');
    const [mode, , sha, size] = rec.slice(0, tab).split(/ +/);
    if (tab < 0 || !mode || !sha || size === undefined) throw new Error('unexpected git ls-tree record');
    const type = entryType(mode);
    const path = prefix + rec.slice(tab + 1);
    entries.push(size === '-' || type === 'dir' || type === 'submodule' ? { mode, path, type, sha } : { mode, path, type, sha, size: Number(size) });
  }
  return entries;
}

/** Drops the mode: the shape the port promises. */
export function toTreeEntry(e: RawEntry): TreeEntry {
  return e.size === undefined ? { path: e.path, type: e.type, sha: e.sha } : { path: e.path, type: e.type, sha: e.sha, size: e.size };
}

/** Recursive listing below `path` at `commit`; `not_found` unless `path` is a directory there. */
export async function listTree(repo: Repo, commit: string, path: string): Promise<{ ok: true; value: TreeListing } | Failed> {
  // `./` and `../` would be resolved against the working directory; the core never sends them, we refuse them too.
  if (path !== '' && !isTreePath(path)) return fail('not_found', `Directory not found: ${path}`);
  // `<commit>:<path>` takes the path literally (no pathspec magic) and fails for a blob, a submodule or nothing.
  const treeish = path === '' ? `${commit}^{tree}` : `${commit}:${path}`;
  const kind = await runGit(['cat-file', '-t', treeish], repo.call);
  if (kind.code !== 0 || kind.stdout.toString('utf8').trim() !== 'tree') {
    if (kind.code !== 0 && kind.code !== 128) return gitFailure(kind, 'listing a tree', repo.log);
    return fail('not_found', `Directory not found: ${path}`);
  }
  const run = await runGit(['ls-tree', '-r', '-t', '-l', '-z', treeish], repo.call);
  if (run.code !== 0) return gitFailure(run, 'listing a tree', repo.log);
  const entries = parseLsTree(run.stdout, path === '' ? '' : `${path}/`).map(toTreeEntry);
  return ok({ commit, entries });
}
