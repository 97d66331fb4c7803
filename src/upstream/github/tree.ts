// Trees: the recursive listing (one request, cached by tree SHA) with a bounded level-by-level fallback when GitHub
// truncates it, and single-path lookups that walk only the trees on the way to the path.
import type { EntryType, TreeEntry } from '../../core/model.js';
import type { TreeListing } from '../types.js';
import { charged, cleanPath, immutable, mapLimit, type Ctx, type RepoRef } from './context.js';
import { failure, isHttpFailure } from './errors.js';
import { gitCommit, resolveCommit, type GitCommit } from './refs.js';

/** One tree entry as GitHub lists it; `path` is relative to the tree that was fetched. */
export interface RawEntry {
  readonly path: string;
  readonly mode: string;
  readonly type: string;
  readonly sha: string;
  readonly size?: number;
}

interface RawTree {
  readonly entries: readonly RawEntry[];
  readonly truncated: boolean;
  /** path → entry, built lazily for lookups in recursive listings. */
  index?: Map<string, RawEntry>;
}

// Level-by-level fallback bounds: trees fetched, and concurrency per level.
const MAX_FALLBACK_TREES = 2000;
const LEVEL_CONCURRENCY = 8;

function entryBytes(t: RawTree): number {
  return t.entries.reduce((n, e) => n + 160 + e.path.length * 2, 64);
}

/** `GET git/trees/{sha}` (optionally recursive), cached by SHA: trees are immutable. */
export function fetchTree(ctx: Ctx, r: RepoRef, sha: string, recursive: boolean): Promise<RawTree> {
  return immutable(
    ctx,
    `tree:${r.key}:${sha}:${recursive ? 'r' : '1'}`,
    async () => {
      const res = await ctx.octokit.rest.git.getTree({
        ...charged(ctx),
        owner: r.owner,
        repo: r.repo,
        tree_sha: sha,
        ...(recursive ? { recursive: '1' } : {}),
      });
      return rawTree(res.data);
    },
    entryBytes,
  );
}

function rawTree(data: {
  tree: { path?: string; mode?: string; type?: string; sha?: string; size?: number }[];
  truncated?: boolean;
}): RawTree {
  const entries = data.tree.map((e) => {
    const base = { path: e.path ?? '', mode: e.mode ?? '', type: e.type ?? '', sha: e.sha ?? '' };
    return typeof e.size === 'number' ? { ...base, size: e.size } : base;
  });
  return { entries, truncated: data.truncated === true };
}

/**
 * A commit's root tree id and recursive listing. `git/trees/{commit}` accepts a commit and answers with its root
 * tree, so a cold listing costs one request instead of a commit read plus a tree read (history's head check counts on it).
 */
async function commitRootTree(ctx: Ctx, r: RepoRef, commit: string): Promise<{ tree: string; listing: RawTree }> {
  const known = ctx.cache.peek<GitCommit>(`gcommit:${r.key}:${commit}`);
  const tree =
    known?.tree ??
    (await immutable(
      ctx,
      `ctree:${r.key}:${commit}`,
      async () => {
        try {
          const res = await ctx.octokit.rest.git.getTree({
            ...charged(ctx),
            owner: r.owner,
            repo: r.repo,
            tree_sha: commit,
            recursive: '1',
          });
          const listing = rawTree(res.data);
          ctx.cache.set(`tree:${r.key}:${res.data.sha}:r`, listing, entryBytes(listing));
          return res.data.sha;
        } catch (err) {
          if (isHttpFailure(err) && (err.status === 404 || err.status === 422))
            throw failure('not_found', `Ref ${commit} not found`);
          throw err;
        }
      },
      () => 128,
    ));
  return { tree, listing: await fetchTree(ctx, r, tree, true) };
}

/** A commit's root tree id: from a listing already fetched by commit, else from the commit object. */
export async function treeOfCommit(ctx: Ctx, r: RepoRef, commit: string): Promise<string> {
  const listed = ctx.cache.peek<string>(`ctree:${r.key}:${commit}`);
  return listed ?? (await gitCommit(ctx, r, commit)).tree;
}

/** Maps a GitHub entry to the model's entry kind. */
export function entryType(e: Pick<RawEntry, 'mode' | 'type'>): EntryType {
  if (e.mode === '120000') return 'symlink';
  if (e.mode === '160000' || e.type === 'commit') return 'submodule';
  if (e.type === 'tree') return 'dir';
  return 'file';
}

function toEntry(e: RawEntry, prefix: string): TreeEntry {
  const path = prefix ? `${prefix}/${e.path}` : e.path;
  const type = entryType(e);
  return (type === 'file' || type === 'symlink') && typeof e.size === 'number'
    ? { path, type, sha: e.sha, size: e.size }
    : { path, type, sha: e.sha };
}

/**
 * The entry at `path` below `rootTree` (full path in the result), or undefined. Uses a cached, complete recursive
 * listing when there is one; otherwise walks one non-recursive tree per path component.
 */
export async function lookupPath(ctx: Ctx, r: RepoRef, rootTree: string, path: string): Promise<RawEntry | undefined> {
  const p = cleanPath(path);
  if (!p) return { path: '', mode: '040000', type: 'tree', sha: rootTree };
  const rec = ctx.cache.peek<RawTree>(`tree:${r.key}:${rootTree}:r`);
  if (rec && !rec.truncated) {
    rec.index ??= new Map(rec.entries.map((e) => [e.path, e]));
    return rec.index.get(p);
  }
  const parts = p.split('/');
  let tree = rootTree;
  for (let i = 0; i < parts.length; i++) {
    const level = await fetchTree(ctx, r, tree, false);
    const e = level.entries.find((x) => x.path === parts[i]);
    if (!e) return undefined;
    if (i === parts.length - 1) return { ...e, path: p };
    if (e.type !== 'tree') return undefined;
    tree = e.sha;
  }
  return undefined;
}

/** Everything below `treeSha`, fetched one non-recursive tree per directory, in git's pre-order. */
async function walkLevels(ctx: Ctx, r: RepoRef, treeSha: string): Promise<RawEntry[]> {
  const children = new Map<string, readonly RawEntry[]>();
  let level = [treeSha];
  let fetched = 0;
  while (level.length > 0) {
    fetched += level.length;
    if (fetched > MAX_FALLBACK_TREES) {
      throw failure('too_large', 'The directory is too large to list through the GitHub API; list a subdirectory');
    }
    const trees = await mapLimit(level, LEVEL_CONCURRENCY, (sha) => fetchTree(ctx, r, sha, false));
    const nextLevel: string[] = [];
    trees.forEach((t, i) => {
      children.set(level[i] as string, t.entries);
      for (const e of t.entries) if (e.type === 'tree' && !children.has(e.sha)) nextLevel.push(e.sha);
    });
    level = [...new Set(nextLevel)];
  }
  const out: RawEntry[] = [];
  const visit = (sha: string, prefix: string): void => {
    for (const e of children.get(sha) ?? []) {
      const path = prefix ? `${prefix}/${e.path}` : e.path;
      out.push({ ...e, path });
      if (e.type === 'tree') visit(e.sha, path);
    }
  };
  visit(treeSha, '');
  return out;
}

/** The recursive listing below `path` at `ref`. */
export async function getTree(ctx: Ctx, r: RepoRef, ref: string, path: string): Promise<TreeListing> {
  const sha = await resolveCommit(ctx, r, ref);
  const { tree, listing: root } = await commitRootTree(ctx, r, sha);
  const commit = { sha, tree };
  const p = cleanPath(path);
  const notADir = failure('not_found', `No directory ${p} at this ref`);
  if (!root.truncated) {
    if (!p) return { commit: commit.sha, entries: root.entries.map((e) => toEntry(e, '')) };
    const dir = root.entries.find((e) => e.path === p);
    if (!dir || dir.type !== 'tree') throw notADir;
    const below = root.entries.filter((e) => e.path.startsWith(`${p}/`));
    return { commit: commit.sha, entries: below.map((e) => toEntry(e, '')) };
  }
  // GitHub cut the recursive listing short: never return it. Find the subtree, try it recursively, else walk it.
  ctx.log('info', 'GitHub truncated a recursive tree; walking the subtree level by level', {
    repo: `${r.owner}/${r.repo}`,
  });
  const dir = await lookupPath(ctx, r, commit.tree, p);
  if (!dir || dir.type !== 'tree') throw notADir;
  if (p) {
    const sub = await fetchTree(ctx, r, dir.sha, true);
    if (!sub.truncated) return { commit: commit.sha, entries: sub.entries.map((e) => toEntry(e, p)) };
  }
  const all = await walkLevels(ctx, r, dir.sha);
  return { commit: commit.sha, entries: all.map((e) => toEntry(e, p)) };
}
