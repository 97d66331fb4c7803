// The working-tree port: what the workspace tools need to see of a checked-out branch. Types only; the git adapter
// lives in ./localfs. Like the upstream port it knows nothing about perimeters: it returns raw, unfiltered data (every
// path, count and patch of the whole working tree) and the tool's filter cuts it to the window. Paths are repository
// paths (forward slashes, no leading `./`), decoded as UTF-8; contents are bytes, never decoded here.

/** Why a working-tree call failed. */
export type WsErrorCode =
  | 'not_found' // the repository, branch, worktree, path, commit or conflict stage does not exist
  | 'invalid' // an argument git would misread (a `-`-prefixed revision, a path escaping the tree, a bad sha)
  | 'too_large' // a file or an answer exceeds its cap and cannot be served in part
  | 'timeout' // a git process ran past its time limit and was stopped
  | 'refused' // the repository's configuration could not be neutralised, so the command was not run
  | 'conflict' // the operator operation cannot proceed as asked (branch already checked out, path taken)
  | 'unavailable'; // git is missing or failed unexpectedly: worth retrying later

export interface WsError {
  readonly code: WsErrorCode;
  /** Safe for an operator: never a path the caller did not send, never a secret. */
  readonly message: string;
}

/** Outcome of one working-tree call. */
export type WsResult<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: WsError };

/** One working tree of a repository, from `git worktree list --porcelain -z`. */
export interface WorktreeInfo {
  /** Absolute path of the working tree on disk (operator-facing only: never shown to an agent). */
  readonly path: string;
  /** Short branch name checked out there (`main`, not `refs/heads/main`); null when HEAD is detached. */
  readonly branch: string | null;
  /** Commit checked out; null on an unborn branch. */
  readonly head: string | null;
  /** True for the repository's main working tree. */
  readonly main: boolean;
  readonly bare: boolean;
  readonly locked: boolean;
  readonly prunable: boolean;
}

/** The working trees of local repositories. `repo` is the repository's configured path (its main working tree). */
export interface Workspace {
  /** Every working tree of the repository (main first, then linked ones), bare entries included. */
  worktrees(repo: string): Promise<WsResult<readonly WorktreeInfo[]>>;
  /** The working tree where `branch` is checked out, or undefined when it is checked out nowhere (not an error). */
  open(repo: string, branch: string): Promise<WsResult<WorkTree | undefined>>;
  /** Operator operation: `git worktree add <path> <branch>` for an existing branch; refuses a branch already out. */
  addWorktree(repo: string, branch: string, path: string): Promise<WsResult<WorktreeInfo>>;
}

/** A change code of `git status --porcelain=v2` (one of X or Y): `.` means unchanged. */
export type ChangeCode = '.' | 'M' | 'T' | 'A' | 'D' | 'R' | 'C' | 'U';

/** A file mode as git prints it in octal (`100644`, `100755`, `120000`, `160000`, `040000`, `000000`). */
export type GitMode = string;

/** The submodule field of a porcelain-v2 entry; null when the entry is not a submodule. */
export interface SubmoduleFlags {
  readonly commitChanged: boolean;
  readonly trackedChanges: boolean;
  readonly untrackedChanges: boolean;
}

/**
 * Target texts of the sides of a status entry that are symlinks, as git stores them (a committed or staged link's
 * blob, `readlink` on disk: never followed). A key is present only for a side that is a link; null when its text is
 * not UTF-8. Filled only when status is asked with `read`, for entries it kept.
 */
export interface LinkSides {
  readonly head?: string | null;
  readonly index?: string | null;
  readonly worktree?: string | null;
}

/** One entry of `git status --porcelain=v2 -z` (untracked and ignored-but-not-excluded files included). */
export type StatusEntry =
  | {
      readonly kind: 'ordinary';
      readonly path: string;
      /** X: index against HEAD (staged). */
      readonly staged: ChangeCode;
      /** Y: working tree against index (unstaged). */
      readonly unstaged: ChangeCode;
      readonly submodule: SubmoduleFlags | null;
      readonly modeHead: GitMode;
      readonly modeIndex: GitMode;
      readonly modeWorktree: GitMode;
      readonly oidHead: string;
      readonly oidIndex: string;
      readonly links?: LinkSides;
    }
  | {
      readonly kind: 'renamed';
      readonly path: string;
      /** The path before the rename or copy (judged on its own by the filter). */
      readonly origPath: string;
      /** Rename or copy, with git's similarity score in percent. */
      readonly op: 'rename' | 'copy';
      readonly score: number;
      readonly staged: ChangeCode;
      readonly unstaged: ChangeCode;
      readonly submodule: SubmoduleFlags | null;
      readonly modeHead: GitMode;
      readonly modeIndex: GitMode;
      readonly modeWorktree: GitMode;
      readonly oidHead: string;
      readonly oidIndex: string;
    }
  | {
      readonly kind: 'unmerged';
      readonly path: string;
      /** The two-letter conflict code (`UU`, `AA`, `DU`, `UD`, `AU`, `UA`, `DD`). */
      readonly xy: string;
      readonly submodule: SubmoduleFlags | null;
      /** Modes of stages 1 (base), 2 (ours), 3 (theirs) and of the working tree. */
      readonly modes: readonly [GitMode, GitMode, GitMode, GitMode];
      /** Object ids of stages 1, 2 and 3 (all zeros when a stage is absent). */
      readonly oids: readonly [string, string, string];
    }
  | { readonly kind: 'untracked'; readonly path: string; readonly links?: LinkSides }
  | { readonly kind: 'ignored'; readonly path: string };

/** A status listing; `truncated` when the output cap cut it (the entries then are a prefix of the whole). */
export interface StatusListing {
  readonly entries: readonly StatusEntry[];
  readonly truncated: boolean;
}

/** What a diff compares. `staged: false` = working tree on the right, `staged: true` = index on the right. */
export interface DiffRequest {
  /** Left side: the index (only with `staged: false`), HEAD, or a full commit id. */
  readonly against: 'index' | 'head' | { readonly commit: string };
  readonly staged: boolean;
  /** Limit to these repository paths (files or directories, literal pathspecs). Omitted: the whole tree. */
  readonly paths?: readonly string[];
  /**
   * When set, the diff runs in two passes: a first one lists changed paths (names only), then patches are read, and
   * renames paired, only among the paths `read` accepts (a path that is not valid UTF-8 is never accepted). The
   * others come back in `unread`, by name only: their patches are never read, parsed or counted toward a cap, and
   * git's pairing of one of them with an accepted path never shows.
   */
  readonly read?: (path: string) => boolean;
}

/** A changed path a diff did not read (its request's `read` refused it); `from` when git paired two such paths. */
export interface UnreadChange {
  /** Decoded as UTF-8 with replacement characters: only ever counted, never shown. */
  readonly path: string;
  readonly from?: string;
}

/** Status of one file in a diff. */
export type DiffFileStatus = 'added' | 'modified' | 'deleted' | 'renamed' | 'copied' | 'type_changed' | 'unmerged';

/** One file of a diff, raw: the patch text is git's, for the whole file, unfiltered. */
export interface DiffFile {
  readonly path: string;
  /** Source path of a rename or copy. */
  readonly origPath: string | null;
  readonly status: DiffFileStatus;
  readonly oldMode: GitMode;
  readonly newMode: GitMode;
  /** Object ids; the working-tree side is all zeros when git did not hash it. */
  readonly oldOid: string;
  readonly newOid: string;
  /** Line counts (0 for binary). */
  readonly additions: number;
  readonly deletions: number;
  readonly binary: boolean;
  /** The unified patch of this file (header lines included), bytes as git printed them. */
  readonly patch: Uint8Array;
}

/** A diff; `truncated` when the output cap cut it (files are then a prefix, the last one possibly dropped). */
export interface DiffListing {
  readonly files: readonly DiffFile[];
  readonly truncated: boolean;
  /** Changed paths left unread (only with a request's `read`; empty otherwise). */
  readonly unread: readonly UnreadChange[];
}

/** HEAD of the working tree. */
export interface HeadInfo {
  /** Short branch name; null when detached. */
  readonly branch: string | null;
  /** Commit id; null on an unborn branch. */
  readonly commit: string | null;
  /** Short name of the configured upstream (`origin/main`); null when none is set or it does not resolve. */
  readonly upstream: string | null;
}

/** Commits on each side of HEAD...@{upstream}, counted only over commits touching the given prefixes. */
export type UpstreamCounts =
  { readonly kind: 'none' } | { readonly kind: 'counted'; readonly ahead: number; readonly behind: number };

/** The operation in progress in the working tree, from marker files in its git dir. */
export type Operation = 'none' | 'merge' | 'rebase' | 'cherry_pick' | 'revert' | 'bisect';

/** What merging a branch into HEAD would do, computed without touching the index or the working tree. */
export type MergePreflight =
  | { readonly kind: 'clean'; readonly tree: string }
  | {
      readonly kind: 'conflicted';
      /** Paths with a conflict (every path of a rename/rename conflict listed). */
      readonly paths: readonly string[];
    }
  | { readonly kind: 'no_merge_base' };

/**
 * One stage of a conflicted file: bytes read from the object store, capped. `atPath` tells whether the blob is the
 * one this same path holds in a commit the stage stands for (ours: HEAD; theirs: the commit being merged, picked or
 * reverted, or its parent; base: those or a merge base). False when git took it from another path by pairing a
 * rename, or when no such commit vouches for it (a stash pop, an octopus merge's later heads).
 */
export type ConflictStage =
  | { readonly present: false }
  | {
      readonly present: true;
      readonly oid: string;
      readonly mode: GitMode;
      readonly size: number;
      readonly bytes: Uint8Array;
      readonly truncated: boolean;
      readonly atPath: boolean;
    };

/** The three sides of a conflicted index entry plus the working-tree file (with conflict markers). */
export interface ConflictSides {
  readonly path: string;
  readonly base: ConflictStage;
  readonly ours: ConflictStage;
  readonly theirs: ConflictStage;
  readonly worktree: WorktreeRead;
}

/** One gitlink of HEAD and the commit checked out in its directory. */
export interface SubmoduleInfo {
  readonly path: string;
  /** The commit HEAD records. */
  readonly recorded: string;
  /** The commit checked out at `path`; null when the submodule is not initialised or cannot be read. */
  readonly checkedOut: string | null;
}

/** How a file's working-tree state differs from HEAD. */
export type IntegrityChange = 'modified' | 'added' | 'deleted' | 'mode_changed' | 'symlink_retargeted' | 'type_changed';

/** One file whose working-tree content differs from HEAD (untracked files are `added`). */
export interface IntegrityEntry {
  readonly path: string;
  readonly change: IntegrityChange;
  /** Blob id and mode in HEAD; null when the file is not in HEAD. */
  readonly headOid: string | null;
  readonly headMode: GitMode | null;
  /** Blob id of the working-tree content (`hash-object --no-filters`, a link's target for a symlink); null when deleted. */
  readonly worktreeOid: string | null;
  readonly worktreeMode: GitMode | null;
}

/** The integrity listing; `truncated` when a cap cut it. */
export interface IntegrityListing {
  readonly entries: readonly IntegrityEntry[];
  readonly truncated: boolean;
}

/**
 * One read from disk. A symlink is resolved inside the working tree, hop by hop; `resolvedPath` is the repository path
 * the bytes come from, so the core judges the target, not the link. A link leaving the tree, dangling or looping is
 * `unresolvable` (its target is never read).
 */
export type WorktreeRead =
  | {
      readonly kind: 'file';
      readonly path: string;
      readonly resolvedPath: string;
      readonly size: number;
      readonly bytes: Uint8Array;
      readonly executable: boolean;
    }
  | { readonly kind: 'too_large'; readonly path: string; readonly resolvedPath: string; readonly size: number }
  | { readonly kind: 'unresolvable'; readonly path: string; readonly reason: 'outside' | 'dangling' | 'loop' }
  | { readonly kind: 'directory'; readonly path: string; readonly resolvedPath: string }
  | { readonly kind: 'missing'; readonly path: string };

/** Lines added and deleted in one file by one commit (0/0 and `binary` for a binary file). */
export interface ChurnEntry {
  readonly path: string;
  readonly additions: number;
  readonly deletions: number;
  readonly binary: boolean;
  /**
   * Only when churn is asked with `read` and a side is a symlink: both modes (`000000` for a side that does not
   * exist) and each link side's target text (null when it is not UTF-8).
   */
  readonly links?: {
    readonly oldMode: string;
    readonly newMode: string;
    readonly old?: string | null;
    readonly new?: string | null;
  };
}

/** One commit of a churn window with its per-file numstat (no renames: a move is a delete plus an add). */
export interface ChurnCommit {
  readonly sha: string;
  readonly files: readonly ChurnEntry[];
}

/**
 * Churn over a window, per commit, so a filter can drop hidden files and then commits left with none (a per-prefix
 * commit count would count commits that touched only hidden files).
 */
export interface ChurnListing {
  readonly commits: readonly ChurnCommit[];
  readonly truncated: boolean;
}

/** One checked-out working tree of a branch. Every call runs hardened git; none writes the index or the tree. */
export interface WorkTree {
  /** The branch this working tree was opened for. */
  readonly branch: string;
  /**
   * `git status --porcelain=v2 -z --untracked-files=all --ignored=no` (never refreshes `.git/index`). With `read`:
   * no rename detection (git would pair a readable path with any other), entries with no path `read` accepts are
   * dropped as git prints them and never count toward the cap, and kept entries' symlink sides carry their targets.
   */
  status(opts?: { readonly read?: (path: string) => boolean }): Promise<WsResult<StatusListing>>;
  /** Per-file raw patches (plumbing: diff-files / diff-index, never a refresh). */
  diff(req: DiffRequest): Promise<WsResult<DiffListing>>;
  /** Branch, commit and upstream of HEAD. */
  head(): Promise<WsResult<HeadInfo>>;
  /** Ahead/behind vs `@{upstream}` over commits touching `prefixes` (`['']` = all, `[]` = counts of zero). */
  upstreamCounts(prefixes: readonly string[]): Promise<WsResult<UpstreamCounts>>;
  /** The operation in progress. */
  operation(): Promise<WsResult<Operation>>;
  /** What merging `otherBranch` (a short branch name) into HEAD would do (`git merge-tree --write-tree`). */
  mergePreflight(otherBranch: string): Promise<WsResult<MergePreflight>>;
  /** Stages 1/2/3 of a conflicted path plus its working-tree file, each capped at `maxBytes`. */
  conflictSides(path: string, maxBytes: number): Promise<WsResult<ConflictSides>>;
  /** Gitlinks in HEAD (those `read` accepts, when given) and what is checked out at each. */
  submodules(opts?: { readonly read?: (path: string) => boolean }): Promise<WsResult<readonly SubmoduleInfo[]>>;
  /**
   * Files whose working-tree content differs from HEAD, with hashes. With `read`, only paths it accepts are hashed,
   * and the cap counts only them.
   */
  integrity(opts?: { readonly read?: (path: string) => boolean }): Promise<WsResult<IntegrityListing>>;
  /** Bytes of one file on disk (symlinks resolved inside the tree), refused above `maxBytes`. */
  readFile(path: string, maxBytes: number): Promise<WsResult<WorktreeRead>>;
  /**
   * Numstat of the last `sinceCommits` commits of HEAD touching `prefix` (`''` = whole repository). With `read`, the
   * window counts commits touching a path `read` accepts, files it refuses are dropped as git prints them (never
   * counted toward a cap), and link files carry their targets: then commits whose only kept files are links may come
   * in addition to the window (the caller judges those links and keeps the first `sinceCommits` commits left).
   */
  recentChurn(
    prefix: string,
    sinceCommits: number,
    opts?: { readonly read?: (path: string) => boolean },
  ): Promise<WsResult<ChurnListing>>;
}
