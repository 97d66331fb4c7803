// The cut for pull requests (issue 22): which PRs an agent may read at all, what a PR's net change lets it open, and
// which reviews, comments and annotations it sees. Pure, like the rest of core: the tools read, this decides. Every
// count an agent gets is taken after the cut (ARCHITECTURE habit 15).
import { assertNever } from './result.js';
import type { AgentBinding } from './binding.js';
import type { Scope } from './scope.js';

/** The part of a PR this file judges (the port's PullSummary has it). */
export interface PullHeadBase {
  readonly head_ref: string;
  readonly head_repo: string;
  readonly base_ref: string;
}

/**
 * True when this binding's PRs are merge proposals: a local repository (a path, as config reads one) has no host to
 * keep pull requests (issue 22, local perimeters).
 */
export function pullsAreProposals(binding: AgentBinding): boolean {
  return binding.pulls !== undefined && /^(\/|\.\.?\/|~\/)/.test(binding.repo);
}

/**
 * True when an agent may read this PR: from the repository itself (never a fork), headed by the bound branch, into an
 * allowlisted base of `pulls`. Any other PR answers exactly like a number that does not exist.
 */
export function pullInWindow(pull: PullHeadBase, binding: AgentBinding): boolean {
  const bases = binding.pulls?.bases ?? [];
  return (
    pull.head_repo.toLowerCase() === binding.repo.toLowerCase() &&
    pull.head_ref === binding.branch &&
    bases.includes(pull.base_ref)
  );
}

/**
 * Why a branch's net change (merge base → head) may not be opened as a PR, or undefined when it may. The judgement
 * of push_files over the whole branch: every changed path (both sides of a rename) must be writable, then the
 * perimeter's write guards (protected paths). The refusal names only paths the agent can read; the others are
 * counted, never named.
 */
export function netChangeRefusal(paths: readonly string[], binding: AgentBinding): string | undefined {
  const { scope } = binding;
  const outside = [...new Set(paths)].filter((p) => !scope.canWrite(p));
  if (outside.length > 0) {
    const named = outside.filter((p) => scope.canRead(p)).sort();
    const others = outside.length - named.length;
    const list = named.map((p) => `"${p}"`).join(', ');
    const more =
      others === 0
        ? ''
        : `${named.length > 0 ? ' and ' : ''}${others} path${others === 1 ? '' : 's'} outside this perimeter's write scope`;
    const what =
      named.length > 0
        ? `${list} ${named.length === 1 ? 'is' : 'are'} outside this perimeter's write scope${more}`
        : more;
    return `create_pull_request refused: the branch's changes (merge base to head) touch ${what}. No pull request was opened; revert those changes on the branch first.`;
  }
  const readable = [...new Set(paths)].filter((p) => scope.canRead(p));
  for (const guard of binding.writeGuards) {
    // A guard names the paths it refuses: it only ever sees readable ones, and a hidden protected path (written
    // blind) is still refused, by count.
    const named = guard(readable);
    if (named !== undefined) return `create_pull_request refused: ${named}`;
    const blind = paths.filter((p) => !scope.canRead(p));
    if (blind.length > 0 && guard(blind) !== undefined)
      return `create_pull_request refused: the branch's changes touch ${blind.length} protected path${blind.length === 1 ? '' : 's'} outside what you can read. No pull request was opened.`;
  }
  return undefined;
}

export type ReviewDecision = 'approved' | 'changes_requested' | 'review_required';

/**
 * The review decision from the reviews the agent sees (GitHub's own decision also weighs reviews the cut removed):
 * each author's latest approving or change-requesting review counts; any change request wins.
 */
export function reviewDecision(
  reviews: readonly { readonly author: string | null; readonly state: string }[],
): ReviewDecision {
  const latest = new Map<string, string>();
  for (const r of reviews) {
    if (r.state !== 'approved' && r.state !== 'changes_requested' && r.state !== 'dismissed') continue;
    latest.set(r.author ?? '', r.state);
  }
  const states = [...latest.values()];
  if (states.includes('changes_requested')) return 'changes_requested';
  if (states.includes('approved')) return 'approved';
  return 'review_required';
}

/** A review comment as the cut needs it. */
export interface AnchoredComment {
  readonly id: number;
  readonly review_id: number | null;
  readonly in_reply_to_id: number | null;
  readonly path: string;
}

/**
 * The review comments an agent sees: a comment anchored to a path it cannot read is invisible, and so is its thread
 * (every reply to it, whatever path a reply claims). Returns the kept comments in their order.
 */
export function cutReviewComments<C extends AnchoredComment>(comments: readonly C[], scope: Scope): C[] {
  const byId = new Map(comments.map((c) => [c.id, c]));
  const rootOf = (c: C): C => {
    let at = c;
    for (let i = 0; i < 1000 && at.in_reply_to_id !== null; i++) {
      const up = byId.get(at.in_reply_to_id);
      if (up === undefined) break;
      at = up;
    }
    return at;
  };
  return comments.filter((c) => scope.canRead(c.path) && scope.canRead(rootOf(c).path));
}

/**
 * The reviews an agent sees: a review whose only content is comments it cannot see disappears with them (a review
 * with a body, or with no comments at all, such as a bare approval, stays).
 */
export function cutReviews<R extends { readonly id: number; readonly body: string }>(
  reviews: readonly R[],
  all: readonly AnchoredComment[],
  kept: readonly AnchoredComment[],
): R[] {
  const had = new Set(all.map((c) => c.review_id));
  const has = new Set(kept.map((c) => c.review_id));
  return reviews.filter((r) => r.body.trim() !== '' || !had.has(r.id) || has.has(r.id));
}

/** The times of a PR an agent can place: when it was opened, closed and merged (each visible in the view). */
export interface PullTimes {
  readonly created_at: string;
  readonly closed_at: string | null;
  readonly merged_at: string | null;
}

/**
 * The PR's `updated_at` as an agent reads it: the latest of its opening, closing and merge. The host's own moves with
 * any activity on the PR — a push or a comment touching only hidden files too — so passing it through would tell an
 * agent when hidden work happened.
 */
export function windowUpdatedAt(p: PullTimes): string {
  let latest = p.created_at;
  for (const t of [p.closed_at, p.merged_at]) if (t !== null && Date.parse(t) > Date.parse(latest)) latest = t;
  return latest;
}

/** Where a PR is kept: a host that computes mergeability over the whole repository, or our own merge proposals. */
export type PullHost = 'local' | 'github';

/**
 * The mergeability an agent is told. GitHub computes `mergeable_state` over every file, commit, check and rule of the
 * repository, hidden ones included (a conflict in a hidden file reads `dirty`, a base commit touching only hidden files
 * `behind`, a rule about hidden paths `blocked`), so from GitHub only what the PR's own draft flag says is passed and
 * everything else reads `unknown` (the twin check caught `dirty` against `unstable`). The local upstream's value is a
 * function of the PR's state alone (`blocked` while it waits for a person), so it is kept.
 */
export function windowMergeable<S extends string>(state: S, draft: boolean, host: PullHost): S | 'draft' | 'unknown' {
  switch (host) {
    case 'local':
      return state;
    case 'github':
      return draft ? 'draft' : 'unknown';
    default:
      return assertNever(host, 'pull host');
  }
}
