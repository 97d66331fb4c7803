import {
  filterCommit,
  historyPrefixes,
  isWithin,
  touchesReadable,
  type CommitSummary,
  type Scope,
} from '../core/index.js';
import type { UpResult, Upstream } from '../upstream/types.js';

/** How many upstream commits one call may inspect before it stops looking (a hostile page number cannot scan forever). */
export const MAX_SCAN = 5_000;
const BATCH = 100;
/** Commit fetches in flight at once while verifying a listing (GitHub: bounded parallel requests). */
const VERIFY_CONCURRENCY = 8;

export interface HistoryQuery {
  readonly repo: string;
  readonly ref: string;
  /** Read globs of the binding, or undefined for the unfiltered operator surface. */
  readonly readGlobs: readonly string[] | undefined;
  /** False when files inside read prefixes may still be hidden (privacy zones): every commit is then verified. */
  readonly trustPrefixes: boolean;
  /** Optional path the caller narrowed the history to. */
  readonly path: string | undefined;
  readonly skip: number;
  readonly limit: number;
}

export interface HistoryPage {
  readonly commits: readonly CommitSummary[];
  readonly hasMore: boolean;
  /** True when MAX_SCAN was reached before the page could be filled. */
  readonly scanLimited: boolean;
}

/** Which prefixes to ask the upstream for, and whether every commit it returns is known to be visible. */
function plan(q: HistoryQuery): { paths: string[]; exact: boolean } {
  if (q.readGlobs === undefined) return { paths: [q.path ?? ''], exact: true };
  const derived = historyPrefixes(q.readGlobs);
  const exact = derived.exact && q.trustPrefixes;
  if (q.path === undefined || q.path === '') return { paths: [...derived.prefixes], exact };
  // Narrowed to a path: ask for that path; commits are verified unless the path lies inside an exact prefix.
  const inside = exact && derived.prefixes.some((p) => isWithin(q.path ?? '', p));
  return { paths: [q.path], exact: inside };
}

/**
 * Lists the commits of a branch that touch at least one readable file (and the narrowing path, if any), newest
 * first. Upstream commits come in batches; those that cannot be judged from the listing alone are fetched once
 * and cut with the same filter get_commit uses, so the two tools never disagree.
 */
export async function visibleHistory(
  upstream: Upstream,
  scope: Scope,
  q: HistoryQuery,
): Promise<UpResult<HistoryPage>> {
  const { paths, exact } = plan(q);
  if (paths.length === 0) return { ok: true, value: { commits: [], hasMore: false, scanLimited: false } };
  const want = q.skip + q.limit + 1;
  const visible: CommitSummary[] = [];
  let scanned = 0;
  let more = true;
  const narrowed = (p: string) => q.path === undefined || isWithin(p, q.path);
  // Asked at most once, and only when a listed commit cannot be judged from the listing (never for local git, whose
  // listing names every commit's files).
  let proof: Promise<UpResult<boolean>> | undefined;
  let trusted = exact;
  const needsProof = async (): Promise<UpResult<boolean>> => {
    proof ??= headIsClean(upstream, scope, q, paths, narrowed);
    const r = await proof;
    if (r.ok && r.value) trusted = true;
    return r;
  };
  while (more && visible.length < want && scanned < MAX_SCAN) {
    // The first ask is the page's own size: with nothing hidden it fills the page, and a listing twice as long
    // costs local git nearly twice the time (each commit's files are diffed). Later asks take whole batches.
    const limit = Math.min(scanned === 0 ? want : BATCH, BATCH, MAX_SCAN - scanned);
    const page = await upstream.listCommits(q.repo, q.ref, { paths, skip: scanned, limit });
    if (!page.ok) return page;
    scanned += page.value.commits.length;
    more = page.value.hasMore && page.value.commits.length > 0;
    // Commits that need fetching are verified a few at a time, in order, and only until the page is full.
    const batch = page.value.commits;
    for (let i = 0; i < batch.length && visible.length < want; i += VERIFY_CONCURRENCY) {
      const chunk = batch.slice(i, i + VERIFY_CONCURRENCY);
      if (!trusted && chunk.some((c) => touchesReadable(c, narrowScopeOf(scope, narrowed)) === undefined)) {
        const r = await needsProof();
        if (!r.ok) return r;
      }
      const seen = await Promise.all(chunk.map((c) => isVisible(upstream, scope, q, c, trusted, narrowed)));
      for (const [j, s] of seen.entries()) {
        if (!s.ok) return s;
        const c = chunk[j];
        if (s.value && c) visible.push(stripFiles(c));
      }
    }
  }
  const commits = visible.slice(q.skip, q.skip + q.limit);
  return {
    ok: true,
    value: { commits, hasMore: visible.length > q.skip + q.limit, scanLimited: more && scanned >= MAX_SCAN },
  };
}

const narrowScopeOf = (scope: Scope, narrowed: (p: string) => boolean): Scope => ({
  ...scope,
  canRead: (p) => narrowed(p) && scope.canRead(p),
});

/**
 * True when every file under the listed prefixes in the branch head's tree is readable (one recursive tree read,
 * cached): then a commit touching a prefix touched a readable file, unless it touched only files that are gone from
 * the head (the residual SPEC §4.5 names). False when a hidden file lies there now, or the tree cannot be read.
 */
async function headIsClean(
  upstream: Upstream,
  scope: Scope,
  q: HistoryQuery,
  paths: readonly string[],
  narrowed: (p: string) => boolean,
): Promise<UpResult<boolean>> {
  const tree = await upstream.getTree(q.repo, q.ref, '');
  if (!tree.ok) return tree.error.code === 'over_budget' ? tree : { ok: true, value: false };
  for (const e of tree.value.entries) {
    if (e.type === 'dir' || !paths.some((p) => isWithin(e.path, p))) continue;
    if (!narrowed(e.path)) continue;
    if (!scope.canRead(e.path)) return { ok: true, value: false };
  }
  return { ok: true, value: true };
}

async function isVisible(
  upstream: Upstream,
  scope: Scope,
  q: HistoryQuery,
  c: CommitSummary,
  exact: boolean,
  narrowed: (p: string) => boolean,
): Promise<UpResult<boolean>> {
  const narrowScope = narrowScopeOf(scope, narrowed);
  const quick = touchesReadable(c, narrowScope);
  if (quick !== undefined) return { ok: true, value: quick };
  if (exact) return { ok: true, value: true };
  // The commit came from listing q.ref, so it is reachable: asking again would cost the GitHub adapter a ref
  // resolution and a compare per commit (two requests for each of up to MAX_SCAN commits).
  const detail = await upstream.getCommit(q.repo, c.sha);
  if (!detail.ok) return detail.error.code === 'not_found' ? { ok: true, value: false } : detail;
  return { ok: true, value: filterCommit(detail.value, narrowScope).kind === 'visible' };
}

function stripFiles(c: CommitSummary): CommitSummary {
  return { sha: c.sha, message: c.message, author: c.author, committer: c.committer, parents: c.parents };
}
