// The emulator's pull-request world: PRs (opened over the API or seeded), and what people and CI add to them
// (reviews, review comments, conversation comments, check runs with annotations, commit statuses). Kept in memory
// per repository; every diff, commit list and merge is computed by real git over the repository's objects.
import { diffFiles, type FileChange } from './diff.js';
import { git, gitRaw } from './git.js';
import { resolveCommit } from './objects.js';
import type { RepoEntry } from './state.js';

export interface PullEntry {
  number: number;
  id: number;
  title: string;
  body: string | null;
  /** Head branch name (in `headRepo`). */
  head: string;
  /** `owner/name` of the head's repository: this one, or a fork (seeded only). */
  headRepo: string;
  base: string;
  draft: boolean;
  state: 'open' | 'closed';
  merged: boolean;
  mergeCommit: string | null;
  /** Head and base commits as last seen: a same-repository open PR follows its branches live. */
  headSha: string;
  baseSha: string;
  user: string;
  createdAt: string;
  updatedAt: string;
  closedAt: string | null;
  mergedAt: string | null;
}

export type ReviewState = 'APPROVED' | 'CHANGES_REQUESTED' | 'COMMENTED' | 'DISMISSED' | 'PENDING';

export interface ReviewEntry {
  id: number;
  pull: number;
  user: string;
  body: string;
  state: ReviewState;
  commitId: string;
  submittedAt: string | null;
}

export interface ReviewCommentEntry {
  id: number;
  pull: number;
  reviewId: number | null;
  inReplyTo: number | null;
  path: string;
  line: number | null;
  startLine: number | null;
  body: string;
  user: string;
  commitId: string;
  createdAt: string;
  updatedAt: string;
}

export interface IssueCommentEntry {
  id: number;
  pull: number;
  body: string;
  user: string;
  createdAt: string;
  updatedAt: string;
}

export interface AnnotationEntry {
  path: string;
  startLine: number;
  endLine: number;
  level: 'notice' | 'warning' | 'failure';
  message: string;
  title: string | null;
  rawDetails: string | null;
}

export type CheckStatus = 'queued' | 'in_progress' | 'completed' | 'waiting' | 'requested' | 'pending';
export type CheckConclusion =
  'success' | 'failure' | 'neutral' | 'cancelled' | 'skipped' | 'timed_out' | 'action_required';

export interface CheckRunEntry {
  id: number;
  suiteId: number;
  sha: string;
  name: string;
  status: CheckStatus;
  conclusion: CheckConclusion | null;
  startedAt: string | null;
  completedAt: string | null;
  output: { title: string | null; summary: string | null; text: string | null };
  annotations: AnnotationEntry[];
}

export interface StatusEntry {
  id: number;
  sha: string;
  context: string;
  state: 'error' | 'failure' | 'pending' | 'success';
  description: string | null;
  targetUrl: string | null;
  user: string;
  createdAt: string;
  updatedAt: string;
}

/** Ids per kind, from distinct bases so an id of one kind never reads as another's in a test. */
const ID_BASE = {
  pull: 1_000_000,
  review: 2_000_000,
  comment: 3_000_000,
  reviewComment: 6_000_000,
  check: 4_000_000,
  status: 5_000_000,
};
export type IdKind = keyof typeof ID_BASE;

/**
 * One repository's pull requests and everything hung on them. Ids count per repository (GitHub's are global): two
 * repositories seeded alike get the same ids, so twin repositories differ only where their content does.
 */
export class RepoPulls {
  readonly pulls: PullEntry[] = [];
  readonly reviews: ReviewEntry[] = [];
  readonly reviewComments: ReviewCommentEntry[] = [];
  readonly issueComments: IssueCommentEntry[] = [];
  readonly checkRuns: CheckRunEntry[] = [];
  readonly statuses: StatusEntry[] = [];
  private readonly counters = new Map<IdKind, number>();
  private readonly clock: () => string;

  constructor(clock: () => string) {
    this.clock = clock;
  }

  find(number: number): PullEntry | undefined {
    return this.pulls.find((p) => p.number === number);
  }

  nextId(kind: IdKind): number {
    const n = (this.counters.get(kind) ?? 0) + 1;
    this.counters.set(kind, n);
    return ID_BASE[kind] + n;
  }

  /** The time stamped on what happens now (the emulator's clock, real time unless a test set one). */
  now(): string {
    return this.clock();
  }
}

/** Every PR store of one emulator, its clock, and its diff memo. */
export class PullWorld {
  private readonly byRepo = new Map<string, RepoPulls>();
  /** Diffs by repository and commit pair: immutable, and a 3,000-file PR is read 30 pages at a time. */
  readonly diffs = new Map<string, Promise<FileChange[]>>();
  /** Set by `em.pulls.clock`: a fixed clock makes dates the same in every run and every twin. */
  clock: (() => string) | undefined;

  of(r: RepoEntry): RepoPulls {
    const key = r.fullName.toLowerCase();
    let p = this.byRepo.get(key);
    if (!p) {
      p = new RepoPulls(() => (this.clock ?? nowIso)());
      this.byRepo.set(key, p);
    }
    return p;
  }
}

/** GitHub's timestamp format: ISO 8601 to the second, UTC. */
export function nowIso(): string {
  return new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** True when the PR's head is a branch of this repository (not a fork). */
export function sameRepo(r: RepoEntry, p: PullEntry): boolean {
  return p.headRepo.toLowerCase() === r.fullName.toLowerCase();
}

/**
 * Brings an open PR's head and base up to date with its branches (a push to either updates the PR, as on GitHub);
 * a fork's head stays where it was seeded. A closed PR keeps what it had when it closed.
 */
export async function refresh(world: RepoPulls, r: RepoEntry, p: PullEntry): Promise<void> {
  if (p.state !== 'open') return;
  const [head, base] = await Promise.all([
    sameRepo(r, p) ? resolveCommit(r, `refs/heads/${p.head}`) : Promise.resolve(null),
    resolveCommit(r, `refs/heads/${p.base}`),
  ]);
  if (head && head !== p.headSha) {
    p.headSha = head;
    p.updatedAt = world.now();
  }
  if (base) p.baseSha = base;
}

/** The merge base of the PR's base and head (what its files and commits are computed from). */
export async function mergeBase(r: RepoEntry, p: PullEntry): Promise<string> {
  const out = await gitRaw(r.dir, ['merge-base', '--end-of-options', p.baseSha, p.headSha]);
  return out.code === 0 ? out.stdout.toString('utf8').trim() : p.baseSha;
}

/** The tree a merge of head into base would produce, or null when they conflict (git merge-tree, no side effects). */
export async function mergeTree(r: RepoEntry, p: PullEntry): Promise<string | null> {
  const out = await gitRaw(r.dir, ['merge-tree', '--write-tree', '--no-messages', p.baseSha, p.headSha]);
  return out.code === 0 ? (out.stdout.toString('utf8').split('\n')[0] ?? '').trim() : null;
}

/** Merges the PR for real: a merge commit on the base branch (compare-and-swap), the PR closed as merged. */
export async function mergePull(world: RepoPulls, r: RepoEntry, p: PullEntry): Promise<string> {
  await refresh(world, r, p);
  const tree = await mergeTree(r, p);
  if (!tree) throw new Error(`pull #${p.number} conflicts with ${p.base}`);
  const when = world.now();
  const who = { GIT_AUTHOR_NAME: 'Maintainer', GIT_AUTHOR_EMAIL: 'maintainer@example.test' };
  const env = { ...who, GIT_COMMITTER_NAME: 'GitHub', GIT_COMMITTER_EMAIL: 'noreply@github.com' };
  const message = `Merge pull request #${p.number} from ${p.headRepo.split('/')[0] ?? ''}/${p.head}`;
  const sha = (
    await git(r.dir, ['commit-tree', tree, '-p', p.baseSha, '-p', p.headSha, '-m', message], { env })
  ).trim();
  await git(r.dir, ['update-ref', `refs/heads/${p.base}`, sha, p.baseSha]);
  Object.assign(p, {
    state: 'closed',
    merged: true,
    mergeCommit: sha,
    mergedAt: when,
    closedAt: when,
    updatedAt: when,
  });
  return sha;
}

/** The PR's net change: merge base → head, with rename detection (memoised per commit pair). */
export async function pullChanges(world: PullWorld, r: RepoEntry, p: PullEntry): Promise<FileChange[]> {
  const mb = await mergeBase(r, p);
  const key = `${r.dir}\0${mb}\0${p.headSha}`;
  let got = world.diffs.get(key);
  if (!got) {
    got = diffFiles(r.dir, mb, p.headSha);
    world.diffs.set(key, got);
  }
  return got;
}
