// Pull requests on a local perimeter (issue 22): git on disk keeps none, so a PR is a merge proposal of the bound
// branch into a base (create_pull_request's draft, held by invoke like any proposal). This answers the PR port from
// those proposals, so the PR tools read and cut them exactly as they cut GitHub's. Reviews, comments and CI do not
// exist here: empty lists, not errors.
import type { Proposal, PullRequestChange } from '../core/index.js';
import type {
  PullFiles,
  PullPage,
  PullRequest,
  PullRequests,
  PullState,
  PullSummary,
  UpResult,
  Upstream,
} from '../upstream/types.js';
import type { AgentProposals } from './proposals.js';

type PullProposal = Proposal & { readonly change: PullRequestChange };

const PAGE = 100;
const isPull = (p: Proposal): p is PullProposal => p.change.kind === 'pull_request';
const notFound = (number: number): UpResult<never> => ({
  ok: false,
  error: { code: 'not_found', message: `no pull request #${number}` },
});

/** `open` while waiting for a person (or being applied), `merged` once applied, `closed` otherwise. */
function stateOf(p: Proposal): PullState {
  switch (p.status) {
    case 'pending':
    case 'approved':
    case 'applying':
      return 'open';
    case 'applied':
      return 'merged';
    case 'failed':
    case 'rejected':
    case 'cancelled':
    case 'expired':
      return 'closed';
    default:
      return p satisfies never;
  }
}

/** The PR a proposal stands for. The author is left out: a proposal's agent label names its perimeter. */
function summaryOf(p: PullProposal): PullSummary {
  const decided = 'decided_at' in p ? p.decided_at : p.updated_at;
  const state = stateOf(p);
  return {
    number: p.change.number,
    title: p.change.title,
    body: p.change.body,
    state,
    draft: p.change.draft,
    head_ref: p.branch,
    head_sha: p.change.head,
    head_repo: p.repo,
    base_ref: p.change.into,
    base_sha: p.base,
    author: null,
    created_at: p.created_at,
    updated_at: p.updated_at,
    closed_at: state === 'open' ? null : decided,
    merged_at: state === 'merged' ? decided : null,
  };
}

/** The PR proposals of a repository, newest number first. */
async function pullsOfRepo(proposals: AgentProposals, repo: string): Promise<PullProposal[]> {
  const all = await proposals.list();
  return all
    .filter((p): p is PullProposal => p.repo === repo && isPull(p))
    .sort((a, b) => b.change.number - a.change.number);
}

/**
 * The next PR number of a repository: one past the highest kept. A known wart: if the store dropped the highest
 * finished record (its bounds), its number is given again.
 */
export async function nextPullNumber(proposals: AgentProposals, repo: string): Promise<number> {
  const kept = await pullsOfRepo(proposals, repo);
  return (kept[0]?.change.number ?? 0) + 1;
}

/** The PR port over a repository's PR proposals and its git (for the net change). */
export function localPulls(upstream: Upstream, proposals: AgentProposals): PullRequests {
  const find = async (repo: string, number: number) =>
    (await pullsOfRepo(proposals, repo)).find((p) => p.change.number === number);
  const files = async (repo: string, number: number): Promise<UpResult<PullFiles>> => {
    const p = await find(repo, number);
    if (p === undefined) return notFound(number);
    // The net change as it was proposed: merge base of (the base's head then, the head then) → the head then.
    const cmp = await upstream.compare(repo, p.base, p.change.head);
    if (!cmp.ok) return cmp;
    return { ok: true, value: { files: cmp.value.files, complete: cmp.value.files_complete } };
  };
  return {
    create: () =>
      Promise.resolve({
        ok: false,
        error: { code: 'unavailable', message: 'a local pull request is made as a proposal' },
      }),
    async list(repo, query): Promise<UpResult<PullPage>> {
      const all = (await pullsOfRepo(proposals, repo))
        .map(summaryOf)
        .filter(
          (s) =>
            (query.head === undefined || s.head_ref === query.head) &&
            (query.base === undefined || s.base_ref === query.base) &&
            (query.state === 'all' || (query.state === 'open') === (s.state === 'open')),
        );
      const start = (query.page - 1) * PAGE;
      return { ok: true, value: { pulls: all.slice(start, start + PAGE), hasMore: all.length > start + PAGE } };
    },
    async get(repo, number): Promise<UpResult<PullRequest>> {
      const p = await find(repo, number);
      if (p === undefined) return notFound(number);
      const listed = await files(repo, number);
      if (!listed.ok) return listed;
      const sum = (k: 'additions' | 'deletions') => listed.value.files.reduce((n, f) => n + f[k], 0);
      const s = summaryOf(p);
      return {
        ok: true,
        value: {
          ...s,
          // Open means waiting for a person's approval.
          mergeable_state: s.state === 'open' ? 'blocked' : 'unknown',
          changed_files: listed.value.files.length,
          additions: sum('additions'),
          deletions: sum('deletions'),
        },
      };
    },
    files,
    reviews: () => Promise.resolve({ ok: true, value: [] }),
    reviewComments: () => Promise.resolve({ ok: true, value: [] }),
    comments: () => Promise.resolve({ ok: true, value: [] }),
    checkRuns: () => Promise.resolve({ ok: true, value: [] }),
    statuses: () => Promise.resolve({ ok: true, value: [] }),
  };
}
