// Pull requests and CI on GitHub: the `pulls` part of the port. Only this repository's own PRs are ever answered
// (a fork's head is content outside the repository's branches): lists drop them and single reads call them not
// found. Every list is read whole, 100 a page; the PR read is ETag-conditional and pinned for the rest of the call,
// so the reads that first check the PR (files, reviews, comments) cost nothing extra after `get` in one call.
import type { CommitFile } from '../../core/model.js';
import type {
  CheckAnnotation,
  CheckConclusion,
  CheckRun,
  CheckStatus,
  CommitStatus,
  IssueComment,
  MergeableState,
  PullCreate,
  PullFiles,
  PullPage,
  PullQuery,
  PullRequest,
  PullState,
  PullSummary,
  ReviewComment,
  ReviewState,
  PullReview,
} from '../types.js';
import { approxBytes } from './cache.js';
import { charged, conditionalGet, FULL_SHA, hasNextPage, mapLimit, type Ctx, type RepoRef } from './context.js';
import { failure, isHttpFailure } from './errors.js';
import { toFile, type GhFile } from './mapping.js';

const PER_PAGE = 100;
/** GitHub lists at most 3,000 files of a pull request (30 pages of 100). */
export const PULL_FILES_CAP = 3000;
/** Pages any other list may take before it is cut (the call's request budget usually ends it first). */
const MAX_PAGES = 100;

// --- GitHub's JSON, the slices read here -------------------------------------------------------------------------

interface GhUser {
  readonly login: string;
}
interface GhPull {
  readonly number: number;
  readonly title: string;
  readonly body?: string | null;
  readonly state: string;
  readonly draft?: boolean;
  readonly merged_at: string | null;
  readonly closed_at: string | null;
  readonly created_at: string;
  readonly updated_at: string;
  readonly user: GhUser | null;
  readonly head: { readonly ref: string; readonly sha: string; readonly repo: { readonly full_name: string } | null };
  readonly base: { readonly ref: string; readonly sha: string };
  readonly mergeable_state?: string;
  readonly changed_files?: number;
  readonly additions?: number;
  readonly deletions?: number;
}

/** True when the PR's head is a branch of `r` itself. */
function ownHead(r: RepoRef, p: GhPull): boolean {
  return p.head.repo?.full_name.toLowerCase() === r.key;
}

function stateOf(p: GhPull): PullState {
  if (p.merged_at) return 'merged';
  return p.state === 'open' ? 'open' : 'closed';
}

const MERGEABLE: readonly MergeableState[] = [
  'clean',
  'dirty',
  'unstable',
  'blocked',
  'behind',
  'draft',
  'has_hooks',
  'unknown',
];

function toSummary(p: GhPull): PullSummary {
  return {
    number: p.number,
    title: p.title,
    body: p.body ?? '',
    state: stateOf(p),
    draft: p.draft === true,
    head_ref: p.head.ref,
    head_sha: p.head.sha,
    head_repo: p.head.repo?.full_name ?? '',
    base_ref: p.base.ref,
    base_sha: p.base.sha,
    author: p.user?.login ?? null,
    created_at: p.created_at,
    updated_at: p.updated_at,
    closed_at: p.closed_at,
    merged_at: p.merged_at,
  };
}

function toPull(p: GhPull): PullRequest {
  const ms = p.mergeable_state ?? 'unknown';
  return {
    ...toSummary(p),
    mergeable_state: (MERGEABLE as readonly string[]).includes(ms) ? (ms as MergeableState) : 'unknown',
    changed_files: p.changed_files ?? 0,
    additions: p.additions ?? 0,
    deletions: p.deletions ?? 0,
  };
}

/** What every page request of a list carries: the call's charge, the repository, and the page. */
type PageArgs = ReturnType<typeof charged> & {
  readonly owner: string;
  readonly repo: string;
  readonly per_page: number;
  readonly page: number;
};

/**
 * Reads a list's pages, 100 each, until the last (or `maxPages`); `more` tells whether pages were left unread.
 * `load` spreads `args` last into its request so the list's own query (sort, filter…) keeps its place before the page.
 */
async function allPages<T>(
  ctx: Ctx,
  r: RepoRef,
  maxPages: number,
  load: (args: PageArgs) => Promise<{ readonly data: readonly T[]; readonly headers: { readonly link?: string } }>,
): Promise<{ items: T[]; more: boolean }> {
  const items: T[] = [];
  for (let page = 1; page <= maxPages; page += 1) {
    const got = await load({ ...charged(ctx), owner: r.owner, repo: r.repo, per_page: PER_PAGE, page });
    items.push(...got.data);
    if (!hasNextPage(got.headers.link) || got.data.length === 0) return { items, more: false };
  }
  return { items, more: true };
}

function number(n: number): number {
  // A number that cannot name a PR is answered like a PR that does not exist, without a request.
  if (!Number.isSafeInteger(n) || n < 1) throw failure('not_found', 'No such pull request');
  return n;
}

/** The PR numbered `n` of this repository (ETag-conditional, pinned for the call); fork PRs are `not_found`. */
async function ownPull(ctx: Ctx, r: RepoRef, n: number): Promise<GhPull> {
  const p = await conditionalGet(
    ctx,
    `pull:${r.key}:${number(n)}`,
    async (headers) => {
      const res = await ctx.octokit.rest.pulls.get({
        ...charged(ctx),
        owner: r.owner,
        repo: r.repo,
        pull_number: n,
        headers,
      });
      return { value: res.data as GhPull, headers: res.headers };
    },
    approxBytes,
  );
  if (!ownHead(r, p)) throw failure('not_found', 'No such pull request');
  return p;
}

// --- the port ------------------------------------------------------------------------------------------------------

export async function getPull(ctx: Ctx, r: RepoRef, n: number): Promise<PullRequest> {
  return toPull(await ownPull(ctx, r, n));
}

/** GitHub's 422 for a second PR on the same head and base names it "already exists"; anything else stays `invalid`. */
function alreadyOpen(err: unknown): boolean {
  if (!isHttpFailure(err) || err.status !== 422) return false;
  const data = err.response?.data as { errors?: readonly { message?: unknown }[] } | undefined;
  return (data?.errors ?? []).some((e) => typeof e.message === 'string' && /already exists/i.test(e.message));
}

export async function createPull(ctx: Ctx, r: RepoRef, req: PullCreate): Promise<PullRequest> {
  if (req.head.includes(':')) throw failure('invalid', 'The head is a branch of this repository, without an owner');
  try {
    const res = await ctx.octokit.rest.pulls.create({
      ...charged(ctx),
      owner: r.owner,
      repo: r.repo,
      head: req.head,
      base: req.base,
      title: req.title,
      body: req.body,
      draft: req.draft,
    });
    return toPull(res.data as GhPull);
  } catch (err) {
    if (alreadyOpen(err)) throw failure('conflict', `A pull request from ${req.head} into ${req.base} is already open`);
    throw err;
  }
}

export async function listPulls(ctx: Ctx, r: RepoRef, q: PullQuery): Promise<PullPage> {
  if (!Number.isSafeInteger(q.page) || q.page < 1) throw failure('invalid', 'Pages are numbered from 1');
  // A branch name never holds ':' (git refuses it); one that does would name another owner's fork.
  if (q.head?.includes(':')) throw failure('invalid', 'The head is a branch of this repository, without an owner');
  const res = await ctx.octokit.rest.pulls.list({
    ...charged(ctx),
    owner: r.owner,
    repo: r.repo,
    state: q.state,
    // GitHub filters by head only as `owner:branch` (a bare branch name is silently ignored).
    ...(q.head === undefined ? {} : { head: `${r.owner}:${q.head}` }),
    ...(q.base === undefined ? {} : { base: q.base }),
    per_page: PER_PAGE,
    page: q.page,
  });
  const pulls = (res.data as readonly GhPull[]).filter((p) => ownHead(r, p)).map(toSummary);
  return { pulls, hasMore: hasNextPage(res.headers.link) && res.data.length > 0 };
}

export async function listPullFiles(ctx: Ctx, r: RepoRef, n: number): Promise<PullFiles> {
  await ownPull(ctx, r, n);
  const got = await allPages(ctx, r, PULL_FILES_CAP / PER_PAGE, (args) =>
    ctx.octokit.rest.pulls
      .listFiles({ pull_number: n, ...args })
      .then((res) => ({ data: res.data as readonly GhFile[], headers: res.headers })),
  );
  const files: CommitFile[] = got.items.map(toFile);
  return { files, complete: !got.more && files.length < PULL_FILES_CAP };
}

const REVIEW_STATES: Record<string, ReviewState> = {
  APPROVED: 'approved',
  CHANGES_REQUESTED: 'changes_requested',
  COMMENTED: 'commented',
  DISMISSED: 'dismissed',
  PENDING: 'pending',
};

export async function listReviews(ctx: Ctx, r: RepoRef, n: number): Promise<readonly PullReview[]> {
  await ownPull(ctx, r, n);
  const got = await allPages(ctx, r, MAX_PAGES, (args) =>
    ctx.octokit.rest.pulls.listReviews({ pull_number: n, ...args }),
  );
  return got.items.map((v) => ({
    id: v.id,
    state: REVIEW_STATES[v.state] ?? 'commented',
    author: v.user?.login ?? null,
    body: v.body,
    commit_id: v.commit_id ?? '',
    submitted_at: v.submitted_at ?? null,
  }));
}

export async function listReviewComments(ctx: Ctx, r: RepoRef, n: number): Promise<readonly ReviewComment[]> {
  await ownPull(ctx, r, n);
  const got = await allPages(ctx, r, MAX_PAGES, (args) =>
    ctx.octokit.rest.pulls.listReviewComments({ pull_number: n, sort: 'created', direction: 'asc', ...args }),
  );
  return got.items.map((c) => ({
    id: c.id,
    review_id: c.pull_request_review_id,
    in_reply_to_id: c.in_reply_to_id ?? null,
    path: c.path,
    line: c.line ?? null,
    start_line: c.start_line ?? null,
    body: c.body,
    author: c.user.login,
    created_at: c.created_at,
    updated_at: c.updated_at,
  }));
}

export async function listIssueComments(ctx: Ctx, r: RepoRef, n: number): Promise<readonly IssueComment[]> {
  await ownPull(ctx, r, n);
  const got = await allPages(ctx, r, MAX_PAGES, (args) =>
    ctx.octokit.rest.issues.listComments({ issue_number: n, ...args }),
  );
  return got.items.map((c) => ({
    id: c.id,
    body: c.body ?? '',
    author: c.user?.login ?? null,
    created_at: c.created_at,
    updated_at: c.updated_at,
  }));
}

const CHECK_STATUSES: readonly CheckStatus[] = [
  'queued',
  'in_progress',
  'completed',
  'waiting',
  'requested',
  'pending',
];
const CONCLUSIONS: readonly CheckConclusion[] = [
  'success',
  'failure',
  'neutral',
  'cancelled',
  'skipped',
  'timed_out',
  'action_required',
  'stale',
];
const LEVELS: readonly CheckAnnotation['level'][] = ['notice', 'warning', 'failure'];

function sha(value: string): string {
  if (!FULL_SHA.test(value)) throw failure('not_found', 'No such commit');
  return value.toLowerCase();
}

async function annotationsOf(ctx: Ctx, r: RepoRef, id: number): Promise<CheckAnnotation[]> {
  const got = await allPages(ctx, r, MAX_PAGES, (args) =>
    ctx.octokit.rest.checks.listAnnotations({ check_run_id: id, ...args }),
  );
  return got.items.map((a) => ({
    path: a.path,
    start_line: a.start_line,
    end_line: a.end_line,
    level: (LEVELS as readonly string[]).includes(a.annotation_level ?? '')
      ? (a.annotation_level as CheckAnnotation['level'])
      : 'notice',
    message: a.message ?? '',
    title: a.title ?? null,
  }));
}

export async function listCheckRuns(ctx: Ctx, r: RepoRef, commit: string): Promise<readonly CheckRun[]> {
  const ref = sha(commit);
  const got = await allPages(ctx, r, MAX_PAGES, (args) =>
    ctx.octokit.rest.checks
      .listForRef({ ref, filter: 'latest', ...args })
      .then((res) => ({ data: res.data.check_runs, headers: res.headers })),
  );
  // Annotations only where the run says it has some: a run without costs no request.
  return mapLimit(got.items, 4, async (c) => ({
    id: c.id,
    name: c.name,
    status: (CHECK_STATUSES as readonly string[]).includes(c.status) ? (c.status as CheckStatus) : 'pending',
    conclusion:
      c.conclusion === null
        ? null
        : (CONCLUSIONS as readonly string[]).includes(c.conclusion)
          ? (c.conclusion as CheckConclusion)
          : 'neutral',
    started_at: c.started_at ?? null,
    completed_at: c.completed_at ?? null,
    output: { title: c.output.title ?? null, summary: c.output.summary ?? null, text: c.output.text ?? null },
    annotations: c.output.annotations_count > 0 ? await annotationsOf(ctx, r, c.id) : [],
  }));
}

const STATUS_STATES: readonly CommitStatus['state'][] = ['error', 'failure', 'pending', 'success'];

export async function listStatuses(ctx: Ctx, r: RepoRef, commit: string): Promise<readonly CommitStatus[]> {
  const ref = sha(commit);
  const got = await allPages(ctx, r, MAX_PAGES, (args) =>
    ctx.octokit.rest.repos
      .getCombinedStatusForRef({ ref, ...args })
      .then((res) => ({ data: res.data.statuses, headers: res.headers })),
  );
  // target_url is left behind on purpose: it points at CI logs.
  return got.items.map((x) => ({
    context: x.context,
    state: (STATUS_STATES as readonly string[]).includes(x.state) ? (x.state as CommitStatus['state']) : 'pending',
    description: x.description ?? null,
    created_at: x.created_at,
    updated_at: x.updated_at,
  }));
}
