// Submodules and working-tree integrity as one perimeter sees them. Pure: the adapter's records in, the window's out.
// A symlink side whose resolved target is not readable does not exist here, as it does not for get_file: a link retargeted
// from a readable file to a hidden one reads as a deletion, never as "changed to something you cannot see".
import type { Scope } from './scope.js';

/** A gitlink in the bound head and what is checked out at its path. */
export interface RawSubmodule {
  readonly path: string;
  readonly recorded: string;
  /** The commit checked out in the submodule's working tree; null when it is not initialised. */
  readonly checked_out: string | null;
}

export type SubmoduleState = 'clean' | 'drifted' | 'uninitialized';

export interface SubmoduleView {
  readonly path: string;
  readonly recorded: string;
  readonly checked_out: string | null;
  readonly state: SubmoduleState;
}

/** Readable submodules only, sorted by path, each with its state. */
export function cutSubmodules(subs: readonly RawSubmodule[], scope: Scope): SubmoduleView[] {
  return subs
    .filter((s) => scope.canRead(s.path))
    .map((s) => ({
      ...s,
      state:
        s.checked_out === null
          ? ('uninitialized' as const)
          : s.checked_out === s.recorded
            ? ('clean' as const)
            : ('drifted' as const),
    }))
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/**
 * One side of an integrity record: mode, object id (git's hash of the content) and, for a link, the repository path
 * it resolves to (null when it leaves the tree, dangles or loops; the caller resolves it, hop by hop).
 */
export interface IntegritySide {
  readonly mode: string;
  readonly sha: string;
  readonly resolves_to?: string | null;
}

/** A tracked or untracked file whose working-tree state differs from the bound head (absent side = no such file). */
export interface RawIntegrity {
  readonly path: string;
  readonly head?: IntegritySide;
  readonly worktree?: IntegritySide;
}

export type IntegrityChange = 'modified' | 'added' | 'deleted' | 'mode_changed' | 'symlink_retargeted' | 'type_changed';

export interface IntegrityView {
  readonly path: string;
  readonly change: IntegrityChange;
  readonly head_sha?: string;
  readonly worktree_sha?: string;
}

const LINK_MODE = '120000';

function seen(path: string, side: IntegritySide | undefined, scope: Scope): IntegritySide | undefined {
  if (side === undefined) return undefined;
  if (
    side.mode === LINK_MODE &&
    !(scope.canRead(path) && typeof side.resolves_to === 'string' && scope.canRead(side.resolves_to))
  )
    return undefined;
  return side;
}

function changeOf(head: IntegritySide | undefined, wt: IntegritySide | undefined): IntegrityChange | undefined {
  if (head === undefined) return wt === undefined ? undefined : 'added';
  if (wt === undefined) return 'deleted';
  const hl = head.mode === LINK_MODE;
  const wl = wt.mode === LINK_MODE;
  if (hl !== wl) return 'type_changed';
  if (head.sha !== wt.sha) return hl ? 'symlink_retargeted' : 'modified';
  return head.mode !== wt.mode ? 'mode_changed' : undefined;
}

/** Readable differences only, sorted by path, with the hashes of the sides that exist in the window. */
export function cutIntegrity(records: readonly RawIntegrity[], scope: Scope): IntegrityView[] {
  const out: IntegrityView[] = [];
  for (const r of records) {
    if (!scope.canRead(r.path)) continue;
    const head = seen(r.path, r.head, scope);
    const wt = seen(r.path, r.worktree, scope);
    const change = changeOf(head, wt);
    if (change === undefined) continue;
    out.push({
      path: r.path,
      change,
      ...(head ? { head_sha: head.sha } : {}),
      ...(wt ? { worktree_sha: wt.sha } : {}),
    });
  }
  return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
