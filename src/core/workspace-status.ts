// A working tree's status as one perimeter sees it. Pure: parsed `git status --porcelain=v2` entries in, the window's
// entries and counts out. Both sides of a rename or copy are judged before anything is shown, so a hidden path is
// never echoed and never paired with a visible one: a rename from a hidden path reads as the addition it looks like,
// a rename to a hidden path as the deletion. A symlink side whose target is hidden does not exist (linkServable, the
// predicate get_tree and get_file use). Counts come from the cut lists only, so nothing hidden moves a number.
import { assertNever } from './result.js';
import type { Scope } from './scope.js';
import { linkServable } from './symlink.js';

/** One column of a porcelain XY code: `.` unchanged, M, T, A, D, R, C, U (unmerged). */
export type StatusLetter = '.' | 'M' | 'T' | 'A' | 'D' | 'R' | 'C' | 'U';

/**
 * Target texts of the sides of an entry that are symlinks (key present only for a link side; null: not UTF-8). A link
 * side whose target the scope cannot read does not exist here, as get_tree and get_file judge it.
 */
export interface StatusLinks {
  readonly head?: string | null;
  readonly index?: string | null;
  readonly worktree?: string | null;
}

/** One parsed porcelain v2 record (the adapter parses `-z` output; ignored entries are never asked for). */
export type RawStatusEntry =
  | {
      readonly kind: 'ordinary';
      readonly path: string;
      readonly index: StatusLetter;
      readonly worktree: StatusLetter;
      readonly links?: StatusLinks;
    }
  /** `2` records: a rename or copy (`index` or `worktree` is R or C), `from` the source path. */
  | {
      readonly kind: 'renamed';
      readonly path: string;
      readonly from: string;
      readonly index: StatusLetter;
      readonly worktree: StatusLetter;
    }
  | { readonly kind: 'unmerged'; readonly path: string; readonly index: StatusLetter; readonly worktree: StatusLetter }
  | { readonly kind: 'untracked'; readonly path: string; readonly links?: StatusLinks };

/** What happened to a path in one column, in words. */
export type ChangeWord = 'modified' | 'type_changed' | 'added' | 'deleted' | 'renamed' | 'copied';

/** The seven unmerged shapes git distinguishes. */
export type ConflictKind =
  | 'both_modified'
  | 'both_added'
  | 'both_deleted'
  | 'added_by_us'
  | 'added_by_them'
  | 'deleted_by_us'
  | 'deleted_by_them';

export interface StatusChange {
  readonly path: string;
  readonly change: ChangeWord;
  readonly previous_path?: string;
}

export interface StatusView {
  readonly clean: boolean;
  readonly staged: readonly StatusChange[];
  readonly unstaged: readonly StatusChange[];
  readonly untracked: readonly string[];
  readonly conflicted: readonly { readonly path: string; readonly kind: ConflictKind }[];
  readonly counts: {
    readonly staged: number;
    readonly unstaged: number;
    readonly untracked: number;
    readonly conflicted: number;
  };
}

function word(l: StatusLetter): ChangeWord | undefined {
  switch (l) {
    case '.':
    case 'U':
      return undefined;
    case 'M':
      return 'modified';
    case 'T':
      return 'type_changed';
    case 'A':
      return 'added';
    case 'D':
      return 'deleted';
    case 'R':
      return 'renamed';
    case 'C':
      return 'copied';
    default:
      return assertNever(l, 'status letter');
  }
}

/** The conflict shape of an unmerged XY pair (git's table in git-status(1)); undefined for a pair git never prints. */
export function conflictKind(x: StatusLetter, y: StatusLetter): ConflictKind | undefined {
  const xy = `${x}${y}`;
  const table: Record<string, ConflictKind> = {
    UU: 'both_modified',
    AA: 'both_added',
    DD: 'both_deleted',
    AU: 'added_by_us',
    UA: 'added_by_them',
    DU: 'deleted_by_us',
    UD: 'deleted_by_them',
  };
  return table[xy];
}

const byPath = (a: { path: string }, b: { path: string }) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);

/**
 * One rename/copy record judged on both sides. Returns the ordinary record(s) it reads as inside the window:
 * both sides readable keeps the pair; only the new side readable is an addition (the worktree column, which is about
 * the new path, stays); only the old side readable is a deletion of it for a rename and nothing for a copy (whose
 * source did not change); neither readable is nothing.
 */
function judgeRename(e: Extract<RawStatusEntry, { kind: 'renamed' }>, scope: Scope): RawStatusEntry[] {
  const to = scope.canRead(e.path);
  const from = scope.canRead(e.from);
  if (to && from) return [e];
  const paired = (l: StatusLetter) => l === 'R' || l === 'C';
  if (to)
    return [
      {
        kind: 'ordinary',
        path: e.path,
        index: paired(e.index) ? 'A' : e.index,
        worktree: paired(e.worktree) ? 'A' : e.worktree,
      },
    ];
  if (from && (e.index === 'R' || e.worktree === 'R')) {
    // The old path left the index (or the tree) under its name; nothing about the new path is kept.
    return [
      { kind: 'ordinary', path: e.from, index: e.index === 'R' ? 'D' : '.', worktree: e.worktree === 'R' ? 'D' : '.' },
    ];
  }
  return [];
}

/** Whether one side exists in the window: not a link, or a link whose target text the scope may read. */
function sideSeen(path: string, target: string | null | undefined, scope: Scope): boolean {
  if (target === undefined) return true;
  return target !== null && linkServable(path, target, scope);
}

/**
 * One column (X: HEAD → index, Y: index → working tree) with its sides judged: a change whose old side does not exist
 * in the window reads as an addition, one whose new side does not as a deletion, neither as no change.
 */
function judgeColumn(l: StatusLetter, left: boolean, right: boolean): StatusLetter {
  if (l === '.' || l === 'U') return l;
  const ls = l !== 'A' && left;
  const rs = l !== 'D' && right;
  return ls && rs ? l : rs ? 'A' : ls ? 'D' : '.';
}

/** An entry with its symlink sides judged by their targets (one predicate for every listing: linkServable). */
function judgeLinks(e: RawStatusEntry, scope: Scope): RawStatusEntry[] {
  if (e.kind === 'untracked') return e.links === undefined || sideSeen(e.path, e.links.worktree, scope) ? [e] : [];
  if (e.kind !== 'ordinary' || e.links === undefined) return [e];
  const head = sideSeen(e.path, e.links.head, scope);
  const index = sideSeen(e.path, e.links.index, scope);
  const worktree = sideSeen(e.path, e.links.worktree, scope);
  return [
    {
      kind: 'ordinary',
      path: e.path,
      index: judgeColumn(e.index, head, index),
      worktree: judgeColumn(e.worktree, index, worktree),
    },
  ];
}

/**
 * Cuts parsed status entries to the scope. Directory entries (`dir/`, what git prints for a wholly untracked
 * directory without `-uall`) are dropped: whether one is shown would depend on the hidden files inside it, so the
 * adapter must list untracked files one by one. Lists are sorted by path; counts are their lengths.
 */
export function cutStatus(entries: readonly RawStatusEntry[], scope: Scope): StatusView {
  const staged: StatusChange[] = [];
  const unstaged: StatusChange[] = [];
  const untracked: string[] = [];
  const conflicted: { path: string; kind: ConflictKind }[] = [];
  const push = (list: StatusChange[], path: string, l: StatusLetter, from?: string) => {
    const w = word(l);
    if (w === undefined) return;
    list.push(
      from !== undefined && (w === 'renamed' || w === 'copied')
        ? { path, change: w, previous_path: from }
        : { path, change: w },
    );
  };
  for (const raw of entries) {
    if (raw.path.endsWith('/')) continue;
    const judged =
      raw.kind === 'renamed' ? judgeRename(raw, scope) : scope.canRead(raw.path) ? judgeLinks(raw, scope) : [];
    for (const e of judged) {
      switch (e.kind) {
        case 'untracked':
          untracked.push(e.path);
          break;
        case 'unmerged': {
          const kind = conflictKind(e.index, e.worktree);
          if (kind !== undefined) conflicted.push({ path: e.path, kind });
          break;
        }
        case 'ordinary':
          push(staged, e.path, e.index);
          push(unstaged, e.path, e.worktree);
          break;
        case 'renamed':
          push(staged, e.path, e.index, e.from);
          push(unstaged, e.path, e.worktree, e.from);
          break;
        default:
          assertNever(e, 'status entry');
      }
    }
  }
  staged.sort(byPath);
  unstaged.sort(byPath);
  untracked.sort();
  conflicted.sort(byPath);
  const counts = {
    staged: staged.length,
    unstaged: unstaged.length,
    untracked: untracked.length,
    conflicted: conflicted.length,
  };
  const clean = counts.staged + counts.unstaged + counts.untracked + counts.conflicted === 0;
  return { clean, staged, unstaged, untracked, conflicted, counts };
}
