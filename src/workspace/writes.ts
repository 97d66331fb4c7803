// The working-tree write port: the operations an approved workspace proposal performs on a checked-out branch, and
// the restore points taken before each. Types only; the git adapter lives in ./localfs/writes. Like the read port it
// knows nothing about perimeters: `preview` reports every path an operation would change so the policy can judge
// them all before anything runs, and the proposal service decides whether to call the operation at all.
import type { WsResult } from './types.js';

/** Who a commit is attributed to (the committer is always git-blinder). */
export interface Identity {
  readonly name: string;
  readonly email: string;
}

/** Reset modes, as git names them. */
export type ResetMode = 'soft' | 'mixed' | 'hard';

/**
 * One write operation. Revisions (`from`, `onto`, `to`) are a branch name (looked up exactly as `refs/heads/<name>`)
 * or a full commit id: never an expression, never another namespace.
 */
export type WriteOp =
  | { readonly kind: 'commit'; readonly message: string; readonly paths: readonly string[]; readonly author: Identity }
  | { readonly kind: 'patch'; readonly patch: Uint8Array }
  | { readonly kind: 'discard'; readonly paths: readonly string[] }
  | { readonly kind: 'merge'; readonly from: string }
  | { readonly kind: 'rebase'; readonly onto: string }
  | { readonly kind: 'reset'; readonly mode: ResetMode; readonly to: string }
  | { readonly kind: 'branch'; readonly name: string; readonly from: string }
  | { readonly kind: 'push' };

/** The kind of a write operation. */
export type WriteOpKind = WriteOp['kind'];

/**
 * What an operation would change, computed without changing anything. `paths` are repository paths (both sides of a
 * rename). `exact: false` means a superset (a rebase lists every path either side touched since the merge base).
 */
export interface WritePreview {
  readonly op: WriteOpKind;
  readonly paths: readonly string[];
  readonly exact: boolean;
  /** Paths that would conflict (merge only); a conflicted merge is declined, not applied. */
  readonly conflicts: readonly string[];
  /** The commit the branch is at now (the base the preview was computed on). */
  readonly base: string;
  /**
   * Hash of everything the operation would act on (head, resolved revisions, index and disk state of the paths whose
   * content it takes or throws away). Passed back to `apply`, it makes a stale approval decline instead of running.
   */
  readonly fingerprint: string;
  /** A push: where it would go and the commits it would send (newest first, at most 50), or why there is nowhere to push. */
  readonly push?: PushPlan;
}

/** What a push would do, known before it is proposed (a branch with no upstream is refused at once, not at approval). */
export type PushPlan =
  | { readonly kind: 'target'; readonly remote: string; readonly branch: string; readonly commits: readonly string[] }
  | { readonly kind: 'none'; readonly reason: string };

/** Why an operation was declined; in every case the working tree, index and refs are as they were before. */
export type DeclineReason =
  | 'unchanged' // commit/discard: a listed path has no change to commit or discard
  | 'does_not_apply' // patch: `git apply --check` failed, or the patch names paths git would read differently
  | 'conflict' // merge/rebase: the operation conflicted and was aborted
  | 'dirty' // local changes stand in the way (rebase on a dirty tree, a merge or restore that would overwrite them)
  | 'in_progress' // a merge, rebase, cherry-pick or revert is already in progress in this working tree
  | 'exists' // branch: a branch of that name exists
  | 'not_fast_forward' // push: the remote has commits the branch does not (never forced)
  | 'no_upstream' // push: the bound branch has no upstream on a local remote
  | 'not_restorable' // restore: the point cannot be applied here (its branch is gone or checked out elsewhere)
  | 'stale'; // apply with a fingerprint: something the operation acts on changed since the preview

/** Outcome of one write: applied (with its restore point) or declined with the tree untouched. */
export type WriteOutcome =
  | {
      readonly kind: 'applied';
      readonly op: WriteOpKind | 'restore';
      /** The branch head after the operation (the new branch's head for `branch`). */
      readonly head: string;
      /** The head before it; null when the branch did not exist (a created branch, restoring a deleted one). */
      readonly previousHead: string | null;
      /** The restore point taken before the operation; null for `push` (a remote is never rewound). */
      readonly restorePoint: string | null;
    }
  | {
      readonly kind: 'declined';
      readonly reason: DeclineReason;
      /** Operator-facing; names only paths the caller sent or the preview reported. */
      readonly message: string;
      /** The paths concerned (unchanged paths, conflicted paths), when there are any. */
      readonly paths: readonly string[];
    };

/** One restore point, as stored under `refs/git-blinder/restore/<id>` (never under refs/heads, never shown to agents). */
export interface RestorePoint {
  readonly id: string;
  /** The operation it was taken before (`restore` when taken before restoring another point). */
  readonly op: WriteOpKind | 'restore';
  /** The branch the operation acted on (short name). */
  readonly branch: string;
  /** The branch head before the operation; null when the branch did not exist (a created branch). */
  readonly previousHead: string | null;
  /** Paths whose working-tree and index state the point captured (discard, mixed and hard reset, restore). */
  readonly captured: readonly string[];
  /** When it was taken (ISO 8601, UTC). */
  readonly createdAt: string;
}

/**
 * What committing one path would store, read without following any link: a file's bytes, a link's target text (the
 * blob git stores for it), or nothing (absent, a directory, or a path under a linked directory, which git refuses).
 */
export type StoredContent =
  | { readonly kind: 'file'; readonly path: string; readonly bytes: Uint8Array }
  | { readonly kind: 'symlink'; readonly path: string; readonly target: Uint8Array }
  | { readonly kind: 'too_large'; readonly path: string; readonly size: number }
  | { readonly kind: 'absent'; readonly path: string };

/** The write operations on one checked-out branch. Each is serialised per working tree and runs hardened git. */
export interface WorkTreeWriter {
  /** The branch this writer was opened for. */
  readonly branch: string;
  /** What a commit of `paths` would store (content checks read this, never the file a link points at). */
  stored(paths: readonly string[], maxBytes: number): Promise<WsResult<readonly StoredContent[]>>;
  /** Every path `op` would change (and a merge's conflicts), touching nothing. */
  preview(op: WriteOp): Promise<WsResult<WritePreview>>;
  /**
   * Runs `op` after taking a restore point. With `expect` (a preview's fingerprint) it first checks, under the same
   * lock, that nothing the operation acts on changed since that preview, and declines as `stale` otherwise.
   */
  apply(op: WriteOp, expect?: string): Promise<WsResult<WriteOutcome>>;
}

/** Opens writers on the working trees of local repositories and manages their restore points. */
export interface WorkTreeWriters {
  /** The writer for the working tree where `branch` is checked out; undefined when it is checked out nowhere. */
  open(repo: string, branch: string): Promise<WsResult<WorkTreeWriter | undefined>>;
  /** The repository's restore points, newest first. */
  listRestorePoints(repo: string): Promise<WsResult<readonly RestorePoint[]>>;
  /**
   * Puts a point's branch back at its previous head and its captured paths back in the index and working tree,
   * after taking a restore point of the current state. Declined (`dirty`) when local changes would be overwritten.
   */
  restore(repo: string, id: string): Promise<WsResult<WriteOutcome>>;
  /** Deletes restore point `id` (its retention ran out); a point already gone is not an error. */
  dropRestorePoint(repo: string, id: string): Promise<WsResult<void>>;
}
