import type { CommitDetail, CommitFile, CommitStats, CommitSummary, TreeEntry } from './model.js';
import { isWithin, parentOf } from './path.js';
import type { Scope } from './scope.js';

/**
 * Cuts a recursive listing under `base` to what the scope may read. A file shows when readable; a directory shows
 * only when at least one readable file lies below it, so an empty-looking directory never hints at hidden files.
 * With `recursive: false` only the direct children of `base` are returned, still judged on their whole subtree.
 */
export function filterTree(
  entries: readonly TreeEntry[],
  scope: Scope,
  base: string,
  recursive: boolean,
): TreeEntry[] {
  const visibleDirs = new Set<string>();
  const kept = new Set<TreeEntry>();
  for (const e of entries) {
    if (e.type === 'dir' || !isWithin(e.path, base) || e.path === base) continue;
    if (!scope.canRead(e.path)) continue;
    kept.add(e);
    for (let d = parentOf(e.path); d !== '' && d !== base; d = parentOf(d)) {
      if (visibleDirs.has(d)) break;
      visibleDirs.add(d);
    }
  }
  const out = entries.filter(
    (e) => (e.type === 'dir' && visibleDirs.has(e.path)) || kept.has(e),
  );
  if (recursive) return out;
  return out.filter((e) => parentOf(e.path) === base);
}

/** The result of cutting a commit to a scope. */
export type CommitView =
  | { kind: 'visible'; commit: CommitDetail; omitted_count: number; stats: CommitStats }
  | { kind: 'invisible' };

/**
 * Keeps the files of a commit the scope may read. A rename across the boundary is shown as a plain add or delete
 * on the visible side, without its patch or the hidden path (the patch would carry the hidden file's lines).
 * A commit with no readable file is invisible: "not found", never an empty ghost.
 */
export function filterCommit(commit: CommitDetail, scope: Scope): CommitView {
  const files: CommitFile[] = [];
  let omitted = 0;
  for (const f of commit.files) {
    const seen = cutFile(f, scope);
    if (seen) files.push(seen);
    else omitted++;
  }
  if (files.length === 0) return { kind: 'invisible' };
  // Copy the header field by field: a spread would carry any extra upstream field (a whole-commit `stats`, say).
  const { sha, message, author, committer, parents } = commit;
  const cut: CommitDetail = { sha, message, author, committer, parents, files };
  return { kind: 'visible', commit: cut, omitted_count: omitted, stats: statsOf(files) };
}

function cutFile(f: CommitFile, scope: Scope): CommitFile | undefined {
  const newSeen = scope.canRead(f.path);
  const prev = f.previous_path;
  if (prev === undefined) return newSeen ? f : undefined;
  const oldSeen = scope.canRead(prev);
  if (newSeen && oldSeen) return f;
  // Known wart: without the hidden side we cannot recompute an exact diff, so the counts keep only the visible side.
  if (newSeen) return { path: f.path, status: 'added', additions: f.additions, deletions: 0 };
  if (oldSeen && f.status === 'renamed') return { path: prev, status: 'removed', additions: 0, deletions: f.deletions };
  return undefined;
}

/** Sums visible file counts. */
export function statsOf(files: readonly CommitFile[]): CommitStats {
  let additions = 0;
  let deletions = 0;
  for (const f of files) {
    additions += f.additions;
    deletions += f.deletions;
  }
  return { additions, deletions, total: additions + deletions };
}

/**
 * Judges a listed commit from the paths it touches, when the upstream provided them:
 * `true` shows it, `false` hides it, `undefined` means "unknown, fetch the commit and use filterCommit".
 */
export function touchesReadable(commit: CommitSummary, scope: Scope): boolean | undefined {
  if (!commit.files) return undefined;
  return commit.files.some((p) => scope.canRead(p));
}
