// The port of the branch lock: one writer at a time per repository branch, across every process that shares it
// (issue 21 §4). Types and the key only. The PostgreSQL store holds it as an advisory lock; a process alone on the file
// store passes none and its adapters' own queues are the whole story. Passed in from the composition root, so the git
// adapters never import a store.

/** How a branch is named to the lock: the repository's common git dir (absolute, as git prints it) and the branch. */
export const branchLockKey = (commonDir: string, branch: string): string => `${commonDir}\0${branch}`;

/** What holding came to: the task's own value, or why the branch could not be held (then the task never ran). */
export type Held<T> =
  | { readonly kind: 'held'; readonly value: T }
  | { readonly kind: 'busy'; readonly waitedMs: number }
  | { readonly kind: 'unavailable' };

/** Runs `task` while holding `key` against every other holder, in this process and in others. */
export type BranchLock = <T>(key: string, task: () => Promise<T>) => Promise<Held<T>>;

/** The refusal when the branch stayed held by another writer: the same words on every surface. */
export const BRANCH_BUSY =
  'Another git-blinder instance kept this branch locked while writing it; nothing was written. Retry in a few seconds.';

/** The refusal when the lock itself cannot be asked for (the shared store does not answer). */
export const BRANCH_LOCK_UNAVAILABLE =
  'This server cannot reach its shared state store to lock the branch; nothing was written. Retry in a few seconds.';
