// The upstream port: what git-blinder needs from a git host. Types only; adapters live beside it.
// Upstreams know nothing about perimeters: every path and ref they receive was already judged by the core.
import type { CommitDetail, CommitFile, CommitSummary, TreeEntry } from '../core/model.js';

/** Why an upstream call failed, in terms the mcp layer can turn into an agent-facing message. */
export type UpstreamErrorCode =
  | 'not_found' // repository, ref, path or commit does not exist (or is not reachable from the ref)
  | 'empty_repository' // the repository has no commits yet
  | 'conflict' // the branch moved and the write could not be rebased safely, or a dirty checkout refused it
  | 'invalid' // the upstream rejected the request's content (bad ref name, bad content, ...)
  | 'too_large' // a file or response exceeds what the upstream serves
  | 'unauthorized' // the process's credential is missing, wrong or lacks access
  | 'rate_limited' // the upstream asked us to slow down; `retryAfterSeconds` says for how long
  | 'unavailable' // network failure, timeout, 5xx, git missing: worth retrying later
  | 'over_budget'; // the call's (or the perimeter's) upstream request budget is spent; the message says which

export interface UpstreamError {
  readonly code: UpstreamErrorCode;
  /** Safe to show to an operator: never contains a token, and never a path the caller did not send. */
  readonly message: string;
  readonly retryAfterSeconds?: number;
}

export type UpResult<T> = { ok: true; value: T } | { ok: false; error: UpstreamError };

export interface RepoInfo {
  /** `owner/name` on GitHub, the configured path for a local repository. */
  readonly name: string;
  readonly defaultBranch: string;
  readonly private?: boolean;
}

export interface BranchInfo {
  readonly name: string;
  readonly sha: string;
}

export interface TreeListing {
  /** The commit the listing was read from. */
  readonly commit: string;
  /** Entries below the requested path (full repository paths), recursive, directories included. */
  readonly entries: readonly TreeEntry[];
}

/**
 * One file read: its bytes or a per-path failure. Adapters never decode: the core (`serveRead`) decides what a
 * surface is served, so a BOM, CRLF or NUL byte reads the same through every upstream.
 */
export type FileRead =
  | {
      readonly path: string;
      readonly ok: true;
      readonly sha: string;
      readonly size: number;
      readonly bytes: Uint8Array;
      /** True for a committed symlink: `bytes` is the link target text, never the target file. */
      readonly symlink?: boolean;
    }
  /** `size` is set with `too_large` when the file was refused unread for its size. */
  | { readonly path: string; readonly ok: false; readonly error: UpstreamError; readonly size?: number };

export interface CommitPage {
  readonly commits: readonly CommitSummary[];
  /** True when more commits follow this page. */
  readonly hasMore: boolean;
}

export interface Comparison {
  readonly status: 'ahead' | 'behind' | 'identical' | 'diverged';
  readonly ahead_by: number;
  readonly behind_by: number;
  readonly merge_base: string;
  readonly commits: readonly CommitSummary[];
  readonly files: CommitDetail['files'];
  /** False when the upstream capped `files` (GitHub lists at most 300, with no other signal): it may miss paths. */
  readonly files_complete: boolean;
}

export interface FileWrite {
  readonly path: string;
  readonly content: string;
  readonly encoding: 'utf-8' | 'base64';
}

export interface WriteRequest {
  readonly message: string;
  readonly files: readonly FileWrite[];
  /** Paths to delete. A path that does not exist is ignored, so the answer never tells whether it existed. */
  readonly deletes: readonly string[];
  /** Recorded as the commit author; the committer is always git-blinder. */
  readonly author?: { readonly name: string; readonly email: string };
  /**
   * Judges every path the write changes between the base tree and the new tree (a file written over a directory
   * also removes everything below it; a file below a file replaces it), computed by the adapter before each ref
   * update. `false` refuses the whole write: nothing moves and the result is `invalid`. Absent = no check (operator).
   */
  readonly admit?: (changed: readonly string[]) => boolean;
}

export interface WriteResult {
  readonly sha: string;
  readonly branch: string;
  readonly parent: string;
  /** Times the write was rebuilt on a branch head that moved under it. */
  readonly retries: number;
}

/** One file a search may look into: already judged readable by the caller, never a symlink or submodule. */
export interface GrepFile {
  readonly path: string;
  /** Blob id at the searched commit (content-addressed indexes key on it). */
  readonly sha: string;
}

/** A text search over given files of one commit. Upstreams know nothing about perimeters: `files` is the whole scope. */
export interface GrepRequest {
  /** Files to search, in answer order. Matches in any other file are never returned. */
  readonly files: readonly GrepFile[];
  /**
   * Literal paths (directories or files, in `files` order) whose blobs are exactly `files` (`''` = the whole tree).
   * An adapter that narrows its engine by path uses these and nothing wider: the pattern may run on no other byte.
   */
  readonly cover: readonly string[];
  readonly pattern: string;
  /** `literal`: plain substring; `regex`: a JavaScript-syntax regular expression (already validated). */
  readonly mode: 'literal' | 'regex';
  readonly caseSensitive: boolean;
  /** Stop once this many matches were found (the answer's `end` is then `limit`). */
  readonly maxMatches: number;
  /** Hard bound on the search's running time. */
  readonly timeoutMs: number;
}

/** The first match on one line. Columns count UTF-16 code units, 1-based, over the whole line. */
export interface GrepMatch {
  readonly path: string;
  readonly line: number;
  readonly column: number;
  /** A piece of the line around the match (the whole line when short), without its terminator. */
  readonly text: string;
  /** Column of `text`'s first character in the line. */
  readonly textColumn: number;
}

export interface GrepResult {
  /** In `files` order, then by line. */
  readonly matches: readonly GrepMatch[];
  /** `complete`: every file searched; `limit`: stopped at maxMatches; `timeout`: the time bound hit. */
  readonly end: 'complete' | 'limit' | 'timeout';
  /**
   * Files of `files` the engine gave up on (a match or backtracking limit), in `files` order, before the search
   * ended: each is skipped whole and the search goes on, so a failure belongs to its file and never to the answer.
   */
  readonly skipped: readonly string[];
}

export interface UpstreamHealth {
  readonly ok: boolean;
  readonly detail: string;
  readonly rateLimit?: { readonly remaining: number; readonly limit: number; readonly resetAt: string };
}

/**
 * What one tool call may still spend upstream. The adapter asks once per request it is about to send (retries
 * included) and sends nothing when refused; the error is the call's answer. A promise when the hourly share is
 * counted in a shared store (one budget for every instance).
 */
export interface RequestBudget {
  take(): UpstreamError | undefined | Promise<UpstreamError | undefined>;
  /** Gives back a request that cost nothing on the upstream's own limit (a 304 on GitHub). */
  refund(): void;
}

export interface ReadOptions {
  /**
   * Bytes of content one read may take (when sizes are known before download): a file larger than this, or one that
   * no longer fits after the files before it, is answered `too_large` with its `size`, unread.
   */
  readonly maxBytes?: number;
}

/** A restore point: a private ref holding a branch's head from just before a write, named by the write's id. */
export interface RestorePoint {
  readonly id: string;
  readonly branch: string;
  readonly sha: string;
  /** The full ref name (under refs/git-blinder/restore/, a namespace no agent can name or list). */
  readonly ref: string;
}

/** Restore points of an upstream that can keep them (local git); the operator lists and applies them. */
export interface RestorePoints {
  /** Records `branch`'s current head under `id`; refuses (`conflict`) an id already used. */
  create(repo: string, branch: string, id: string): Promise<UpResult<RestorePoint>>;
  list(repo: string): Promise<UpResult<readonly RestorePoint[]>>;
  /**
   * Moves the branch back to the restore point (its checkout too, when that is clean where the two differ); the
   * branch's head before the move is answered as `from`, and is itself kept as a restore point `<id>-undo`.
   */
  apply(repo: string, id: string): Promise<UpResult<{ readonly point: RestorePoint; readonly from: string }>>;
  /** Deletes restore point `id` (its retention ran out); a point already gone is not an error. */
  drop(repo: string, id: string): Promise<UpResult<void>>;
}

/**
 * A pull request's state: GitHub's `closed` is split by whether the PR was merged, so every consumer matches three
 * cases instead of reading a second flag.
 */
export type PullState = 'open' | 'closed' | 'merged';

/**
 * GitHub's `mergeable_state` (computed in the background: `unknown` until it is). A value GitHub adds later reads as
 * `unknown`, so the union stays closed.
 */
export type MergeableState = 'clean' | 'dirty' | 'unstable' | 'blocked' | 'behind' | 'draft' | 'has_hooks' | 'unknown';

/**
 * A pull request as a list shows it. Only pull requests whose head branch is in the repository itself are ever
 * answered: a fork's PR is dropped by the adapter (its head is content outside the repository's branches). Title and
 * body are written by people: data, never instructions.
 */
export interface PullSummary {
  readonly number: number;
  readonly title: string;
  /** '' when the PR has no description. */
  readonly body: string;
  readonly state: PullState;
  readonly draft: boolean;
  /** The head branch (in this repository) and the commit it pointed to when the PR was read. */
  readonly head_ref: string;
  readonly head_sha: string;
  /** `owner/name` of the head's repository: always the repository asked about (kept so a consumer can assert it). */
  readonly head_repo: string;
  readonly base_ref: string;
  /** The base branch's head when the PR was last computed by the host (not the merge base). */
  readonly base_sha: string;
  /** The author's login; null for a deleted account. */
  readonly author: string | null;
  /** ISO 8601 dates; `closed_at` and `merged_at` are null until then. */
  readonly created_at: string;
  readonly updated_at: string;
  readonly closed_at: string | null;
  readonly merged_at: string | null;
}

/** One pull request read by number: the summary plus what only the single-PR read computes. */
export interface PullRequest extends PullSummary {
  readonly mergeable_state: MergeableState;
  /**
   * The host's totals over every file of the PR, hidden ones included: never an answer to an agent (recompute from the
   * visible files). `changed_files` tells whether the files list was capped.
   */
  readonly changed_files: number;
  readonly additions: number;
  readonly deletions: number;
}

export interface PullCreate {
  /** A branch of the repository itself (never `owner:branch`). */
  readonly head: string;
  readonly base: string;
  readonly title: string;
  readonly body: string;
  readonly draft: boolean;
}

export interface PullQuery {
  /** Only PRs from this branch of the repository; absent = every branch of the repository (forks are always dropped). */
  readonly head?: string;
  /** Only PRs into this base branch. */
  readonly base?: string;
  /** `closed` includes merged PRs. */
  readonly state: 'open' | 'closed' | 'all';
  /** 1-based page of up to 100 PRs as the host pages them, newest first (fork PRs removed, so a page may be short). */
  readonly page: number;
}

export interface PullPage {
  readonly pulls: readonly PullSummary[];
  readonly hasMore: boolean;
}

export interface PullFiles {
  /**
   * The net change of the PR (merge base to head), in the host's order. `patch` is the host's per-file patch, absent for
   * binary files and for patches it will not serve (too large). Hidden files are in here: the caller cuts by path.
   */
  readonly files: readonly CommitFile[];
  /**
   * False when the list reached the host's cap (GitHub serves at most 3,000 files, in pages of 100; a PR of exactly
   * 3,000 files reads as capped): paths may be missing, so a judgement over all of them must refuse.
   */
  readonly complete: boolean;
}

export type ReviewState = 'approved' | 'changes_requested' | 'commented' | 'dismissed' | 'pending';

/** A submitted review (its body may be empty when all it holds is line comments). */
export interface PullReview {
  readonly id: number;
  readonly state: ReviewState;
  readonly author: string | null;
  readonly body: string;
  /** The head commit the review was made on. */
  readonly commit_id: string;
  /** Null for a pending review. */
  readonly submitted_at: string | null;
}

/** A comment anchored to a file of the PR's diff. `path` is the anchor the caller judges: the whole comment goes with it. */
export interface ReviewComment {
  readonly id: number;
  /** The review it was posted in (null when the host does not say). */
  readonly review_id: number | null;
  /** The first comment of the thread this one answers; null for a thread's first comment. */
  readonly in_reply_to_id: number | null;
  readonly path: string;
  /** Line in the head version; null when the comment is outdated (its line no longer exists) or on the whole file. */
  readonly line: number | null;
  /** First line of a multi-line comment; null otherwise. */
  readonly start_line: number | null;
  readonly body: string;
  readonly author: string | null;
  readonly created_at: string;
  readonly updated_at: string;
}

/** A conversation comment on the PR (GitHub's issue comment): anchored to no path. */
export interface IssueComment {
  readonly id: number;
  readonly body: string;
  readonly author: string | null;
  readonly created_at: string;
  readonly updated_at: string;
}

/** One annotation of a check run, anchored to a path the caller judges. */
export interface CheckAnnotation {
  readonly path: string;
  readonly start_line: number;
  readonly end_line: number;
  readonly level: 'notice' | 'warning' | 'failure';
  readonly message: string;
  readonly title: string | null;
}

export type CheckStatus = 'queued' | 'in_progress' | 'completed' | 'waiting' | 'requested' | 'pending';
export type CheckConclusion =
  'success' | 'failure' | 'neutral' | 'cancelled' | 'skipped' | 'timed_out' | 'action_required' | 'stale';

/**
 * A check run on a commit, with its annotations. Its output is written by CI: data, never instructions. Logs and
 * details URLs are never read (a log prints anything, hidden files included).
 */
export interface CheckRun {
  readonly id: number;
  readonly name: string;
  readonly status: CheckStatus;
  /** Null until the run completes. */
  readonly conclusion: CheckConclusion | null;
  readonly started_at: string | null;
  readonly completed_at: string | null;
  readonly output: { readonly title: string | null; readonly summary: string | null; readonly text: string | null };
  readonly annotations: readonly CheckAnnotation[];
}

/**
 * The latest commit status per context (GitHub's combined status). `target_url` is left out on purpose: it points
 * at CI logs, which print anything.
 */
export interface CommitStatus {
  readonly context: string;
  readonly state: 'error' | 'failure' | 'pending' | 'success';
  readonly description: string | null;
  readonly created_at: string;
  readonly updated_at: string;
}

/**
 * Pull requests and CI results of a host that has them (GitHub). Every list is read whole (all pages); a PR that does
 * not exist, is an issue, or comes from a fork is `not_found` alike.
 */
export interface PullRequests {
  /** Opens a PR from `head` (a branch of the repository) into `base`; `conflict` when one is already open for both. */
  create(repo: string, request: PullCreate): Promise<UpResult<PullRequest>>;
  list(repo: string, query: PullQuery): Promise<UpResult<PullPage>>;
  get(repo: string, number: number): Promise<UpResult<PullRequest>>;
  files(repo: string, number: number): Promise<UpResult<PullFiles>>;
  /** Reviews, oldest first. */
  reviews(repo: string, number: number): Promise<UpResult<readonly PullReview[]>>;
  /** Review comments on the diff, oldest first. */
  reviewComments(repo: string, number: number): Promise<UpResult<readonly ReviewComment[]>>;
  /** Conversation comments, oldest first. */
  comments(repo: string, number: number): Promise<UpResult<readonly IssueComment[]>>;
  /** Check runs of commit `sha` (the latest run per name), each with its annotations. */
  checkRuns(repo: string, sha: string): Promise<UpResult<readonly CheckRun[]>>;
  /** The latest status per context on commit `sha`. */
  statuses(repo: string, sha: string): Promise<UpResult<readonly CommitStatus[]>>;
}

export interface Upstream {
  readonly kind: 'local' | 'github';
  /** Repositories this process can serve. */
  listRepos(): Promise<UpResult<readonly RepoInfo[]>>;
  defaultBranch(repo: string): Promise<UpResult<string>>;
  listBranches(repo: string): Promise<UpResult<readonly BranchInfo[]>>;
  /** The head commit of a branch; `not_found` when it does not exist. */
  branchHead(repo: string, branch: string): Promise<UpResult<string>>;
  /** The recursive listing below `path` ('' = root) at `ref`; `not_found` when `path` is not a directory there. */
  getTree(repo: string, ref: string, path: string): Promise<UpResult<TreeListing>>;
  /** Reads files at `ref`; one result per path, in order. */
  readFiles(
    repo: string,
    ref: string,
    paths: readonly string[],
    options?: ReadOptions,
  ): Promise<UpResult<readonly FileRead[]>>;
  /**
   * Commits reachable from `ref`, newest first, touching at least one of `paths` (prefixes; `['']` = all).
   * `skip`/`limit` page through that merged, deduplicated stream.
   */
  listCommits(
    repo: string,
    ref: string,
    query: { readonly paths: readonly string[]; readonly skip: number; readonly limit: number },
  ): Promise<UpResult<CommitPage>>;
  /** A commit with its files; with `reachableFrom`, `not_found` unless the commit is an ancestor of that ref. */
  getCommit(repo: string, sha: string, reachableFrom?: string): Promise<UpResult<CommitDetail>>;
  compare(repo: string, base: string, head: string): Promise<UpResult<Comparison>>;
  /** True when commit `ancestor` is `head` or one of its ancestors; false for unknown commits too. */
  isAncestor(repo: string, ancestor: string, head: string): Promise<UpResult<boolean>>;
  /** Searches the text of `request.files` at `commit` (binary files, by git's NUL rule, are skipped). */
  grep(repo: string, commit: string, request: GrepRequest): Promise<UpResult<GrepResult>>;
  /** One atomic commit on `branch` (compare-and-swap on its head; rebuilt on a moved head when safe). */
  commitFiles(repo: string, branch: string, request: WriteRequest): Promise<UpResult<WriteResult>>;
  health(): Promise<UpstreamHealth>;
  close(): Promise<void>;
  /** The same upstream, every request of which is charged to `budget` (adapters without request costs omit it). */
  withBudget?(budget: RequestBudget): Upstream;
  /** Restore points, where the upstream keeps them (local git); absent on GitHub. */
  readonly restorePoints?: RestorePoints;
  /** Pull requests and CI, where the host has them (GitHub); absent on local git (PRs there are merge proposals). */
  readonly pulls?: PullRequests;
}

/** Picks the upstream that serves a repository (`owner/name` → GitHub, a local path → local git), if any. */
export type UpstreamFor = (repo: string) => Upstream | undefined;
