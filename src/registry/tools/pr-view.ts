// What the PR tools share (issue 22): reading one PR through the cut, the PR as an agent sees it, and its text. A PR
// outside the window (another branch's, a base not allowlisted, a fork's, or one whose files are all hidden) is read
// exactly like a number that does not exist: `undefined` here, the tool's not-found message there.
import * as z from 'zod/v4';
import {
  contentCap,
  filterCommit,
  linkCandidates,
  pageOf,
  pullInWindow,
  reviewDecision,
  unpairedSides,
  windowMergeable,
  windowUpdatedAt,
  type AgentBinding,
  type CommitDetail,
  type CommitFile,
  type CommitStats,
  type PullHost,
  type Result,
} from '../../core/index.js';
import type {
  PullFiles,
  PullRequest,
  PullRequests,
  PullSummary,
  UpResult,
  UpstreamError,
} from '../../upstream/types.js';
import { localPulls } from '../local-pulls.js';
import { field, moreLine, untrusted, type Fence } from '../render.js';
import type { Annotations, ToolContext } from '../tool.js';
import { withWholeFiles } from './get_commit.js';

export const PullNumber = z.number().int().min(1).max(1_000_000_000).describe('Pull request number.');

/** Where the PR tools cannot run: no GitHub pulls on this upstream. */
export const NO_PULLS: UpstreamError = {
  code: 'unavailable',
  message: 'Pull requests are not available on this repository (its upstream keeps none).',
};

/** The hints of every PR tool that only reads: nothing written, the same answer twice, this host only. */
export const readOnlyPull = (title: string): Annotations => ({
  title,
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
});

/**
 * The agent binding and the upstream's pulls, or why a PR tool cannot run here. Local git has none: its PRs are the
 * repository's PR proposals (local-pulls.ts), where the composition keeps proposals.
 */
export function pullsOf(ctx: ToolContext): { binding: AgentBinding; pulls: PullRequests } | undefined {
  if (ctx.binding.surface !== 'agent' || ctx.binding.pulls === undefined) return undefined;
  if (ctx.upstream.pulls !== undefined) return { binding: ctx.binding, pulls: ctx.upstream.pulls };
  if (ctx.upstream.kind === 'local' && ctx.proposals !== undefined)
    return { binding: ctx.binding, pulls: localPulls(ctx.upstream, ctx.proposals) };
  return undefined;
}

/** One PR cut to the window: its readable files (merge base → head), their totals, and the hidden ones counted. */
export interface CutPull<P extends PullSummary = PullRequest> {
  readonly pull: P;
  readonly files: readonly CommitFile[];
  readonly stats: CommitStats;
  readonly omitted_count: number;
}

const noFiles: CommitFile[] = [];

/**
 * Reads PR `number` and cuts it like get_commit cuts a commit (renames unpaired, visible sides read whole, hidden
 * files counted by the omitted_count rule). `undefined` for a PR the agent may not read, a hidden-only one included.
 */
export async function loadPull(ctx: ToolContext, number: number): Promise<UpResult<CutPull | undefined>> {
  const on = pullsOf(ctx);
  if (on === undefined) return { ok: false, error: NO_PULLS };
  const got = await on.pulls.get(on.binding.repo, number);
  if (!got.ok) return got.error.code === 'not_found' ? { ok: true, value: undefined } : got;
  return cutPull(ctx, got.value);
}

/** Cuts an already-read PR (see loadPull); `files` when its files are already known (a local PR being proposed). */
export async function cutPull<P extends PullSummary>(
  ctx: ToolContext,
  pull: P,
  files?: PullFiles,
): Promise<UpResult<CutPull<P> | undefined>> {
  const on = pullsOf(ctx);
  if (on === undefined) return { ok: false, error: NO_PULLS };
  if (!pullInWindow(pull, on.binding)) return { ok: true, value: undefined };
  const listed: UpResult<PullFiles> =
    files === undefined ? await on.pulls.files(on.binding.repo, pull.number) : { ok: true, value: files };
  if (!listed.ok) return listed.error.code === 'not_found' ? { ok: true, value: undefined } : listed;
  if (!listed.value.complete)
    return {
      ok: false,
      error: {
        code: 'too_large',
        message: `Pull request #${pull.number} changes more files than GitHub lists; it cannot be shown through this perimeter.`,
      },
    };
  // The net change as a commit from the merge base: the old sides of unpaired renames and link candidates are read
  // there, so the merge base is asked for only when some old side must be read.
  const draft: CommitDetail = {
    sha: pull.head_sha,
    message: '',
    author: { name: '', email: '', date: '' },
    committer: { name: '', email: '', date: '' },
    parents: [],
    files: listed.value.files,
  };
  const needsOld =
    unpairedSides(draft, ctx.scope).removed.length > 0 || linkCandidates(draft.files, ctx.scope).atOld.length > 0;
  let parents: string[] = [];
  if (needsOld) {
    const cmp = await ctx.upstream.compare(on.binding.repo, pull.base_sha, pull.head_sha);
    if (!cmp.ok) return cmp;
    parents = [cmp.value.merge_base];
  }
  const fetched = await withWholeFiles({ ...draft, parents }, ctx);
  if (!fetched.ok) return fetched;
  const cut = filterCommit(fetched.value.commit, ctx.scope, fetched.value.whole, fetched.value.badLinks);
  if (cut.kind === 'invisible') return { ok: true, value: undefined };
  return {
    ok: true,
    value: { pull, files: cut.commit.files ?? noFiles, stats: cut.stats, omitted_count: cut.omitted_count },
  };
}

export const PullOut = z.object({
  number: z.number(),
  title: z.string(),
  body: z.string(),
  state: z.enum(['open', 'closed', 'merged']),
  draft: z.boolean(),
  base: z.string(),
  head: z.string(),
  author: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
  closed_at: z.string().nullable(),
  merged_at: z.string().nullable(),
  // Of the readable files only (hidden ones are counted in omitted_count, write-only ones never).
  changed_files: z.number(),
  additions: z.number(),
  deletions: z.number(),
  omitted_count: z.number(),
});
export type PullOut = z.infer<typeof PullOut>;

export const PullDetailOut = PullOut.extend({
  mergeable_state: z.string(),
  review_decision: z.enum(['approved', 'changes_requested', 'review_required']),
});
export type PullDetailOut = z.infer<typeof PullDetailOut>;

/** The PR as an agent sees it: counts from the cut, never the host's. */
export function pullView(c: CutPull<PullSummary>): PullOut {
  const p = c.pull;
  return {
    number: p.number,
    title: p.title,
    body: p.body,
    state: p.state,
    draft: p.draft,
    base: p.base_ref,
    head: p.head_ref,
    author: p.author,
    created_at: p.created_at,
    updated_at: windowUpdatedAt(p),
    closed_at: p.closed_at,
    merged_at: p.merged_at,
    changed_files: c.files.length,
    additions: c.stats.additions,
    deletions: c.stats.deletions,
    omitted_count: c.omitted_count,
  };
}

/** The single-PR view: the review decision is taken over the reviews the agent can see. */
export function pullDetail(
  c: CutPull,
  reviews: readonly { author: string | null; state: string }[],
  host: PullHost,
): PullDetailOut {
  return {
    ...pullView(c),
    mergeable_state: windowMergeable(c.pull.mergeable_state, c.pull.draft, host),
    review_decision: reviewDecision(reviews),
  };
}

/** One line per PR: `#n state [draft] base <- head +a -d files by author updated`; the title fenced below it. */
export function pullLine(p: PullOut): string {
  const draft = p.draft ? ' draft' : '';
  const omitted = p.omitted_count > 0 ? ` (${p.omitted_count} other files omitted)` : '';
  return `#${p.number} ${p.state}${draft} ${field(p.base)} <- ${field(p.head)} ${p.changed_files} files +${p.additions} -${p.deletions}${omitted} by ${field(p.author ?? 'ghost')} ${p.updated_at}\n`;
}

/** A PR's text: its line, its state details, then title and body as untrusted text. */
export function renderPull(p: PullOut | PullDetailOut, fence: Fence): string {
  const detail = 'review_decision' in p ? `mergeable: ${field(p.mergeable_state)}; review: ${p.review_decision}\n` : '';
  const body = p.body === '' ? p.title : `${p.title}\n\n${p.body}`;
  return `${pullLine(p)}${detail}${untrusted(fence, body)}`;
}

/** The not-found answer of every PR tool: the same for a PR outside the window and a number never used. */
export const pullNotFound = (a: { number?: number | undefined }): string =>
  a.number === undefined
    ? 'Not found: no open pull request from this branch. Open one with create_pull_request.'
    : `Not found: no pull request #${a.number} from this branch. Use list_pull_requests to see this branch's pull requests.`;

/** One page of a PR tool's list: its items, the first one's index in the whole list, and the answer's paging tail. */
export interface ListPage<T> {
  readonly items: T[];
  readonly start: number;
  readonly tail: { truncated: boolean; next_page?: number };
}

/**
 * Page `page` (default 1) of a visible list under the binding's content cap less `envelope` bytes for the answer
 * around it, each item costing its JSON and a separator; past the end it is pageOf's refusal.
 */
export function listPage<T>(
  ctx: ToolContext,
  items: readonly T[],
  envelope: number,
  page: number | undefined,
): Result<ListPage<T>, 'out_of_range'> {
  const cap = contentCap(ctx.binding);
  const sizes = items.map((i) => (Number.isFinite(cap) ? Buffer.byteLength(JSON.stringify(i)) + 1 : 0));
  const cut = pageOf(sizes, cap - envelope, page ?? 1);
  if (!cut.ok) return cut;
  const next = cut.value.next;
  return {
    ok: true,
    value: {
      items: items.slice(cut.value.start, cut.value.end),
      start: cut.value.start,
      tail: { truncated: next !== undefined, ...(next === undefined ? {} : { next_page: next }) },
    },
  };
}

/** The last line of a paged answer: how to ask for the next page, when there is one. */
export const morePages = (o: { readonly next_page?: number | undefined }): string =>
  o.next_page === undefined ? '' : moreLine('page', o.next_page);
