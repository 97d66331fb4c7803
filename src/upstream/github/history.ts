// History: list commits (one lazily paged stream per path prefix, merged newest first), get a commit with all its
// file pages, compare. Lists are pinned to the resolved head SHA, which makes every page immutable and cacheable
// and keeps pages consistent while the branch moves.
import type { CommitDetail, CommitFile, CommitSummary } from '../../core/model.js';
import type { CommitPage, Comparison } from '../types.js';
import { approxBytes } from './cache.js';
import { charged, cleanPath, FULL_SHA, hasNextPage, immutable, type Ctx, type RepoRef } from './context.js';
import { failure, isHttpFailure } from './errors.js';
import { toFile, toSummary, type GhCommit, type GhFile } from './mapping.js';
import { isNotFound, resolveCommit } from './refs.js';

const PER_PAGE = 100;
// GitHub serves a commit's files 300 a page up to 3,000.
const MAX_FILE_PAGES = 10;
const MAX_COMPARE_PAGES = 10;

interface Page {
  readonly commits: readonly CommitSummary[];
  readonly next: boolean;
}

/** One page of `GET commits?sha=…&path=…`, cached: the list below a fixed SHA never changes. */
function commitPage(ctx: Ctx, r: RepoRef, head: string, path: string, page: number): Promise<Page> {
  return immutable(
    ctx,
    `commits:${r.key}:${head}:${page}:${path}`,
    async () => {
      const res = await ctx.octokit.rest.repos.listCommits({
        ...charged(ctx),
        owner: r.owner,
        repo: r.repo,
        sha: head,
        ...(path ? { path } : {}),
        per_page: PER_PAGE,
        page,
      });
      return {
        commits: res.data.map((c) => toSummary(c as GhCommit)),
        next: hasNextPage(res.headers.link) && res.data.length > 0,
      };
    },
    approxBytes,
  );
}

/** A lazily paged stream of commits touching one prefix. */
class CommitStream {
  private buffer: CommitSummary[] = [];
  private page = 0;
  private done = false;
  private readonly load: (page: number) => Promise<Page>;

  constructor(load: (page: number) => Promise<Page>) {
    this.load = load;
  }

  async peek(): Promise<CommitSummary | undefined> {
    while (this.buffer.length === 0 && !this.done) {
      this.page += 1;
      const p = await this.load(this.page);
      this.buffer = [...p.commits];
      this.done = !p.next;
    }
    return this.buffer[0];
  }

  shift(): void {
    this.buffer.shift();
  }
}

function time(c: CommitSummary): number {
  const t = Date.parse(c.committer.date);
  return Number.isNaN(t) ? 0 : t;
}

/** Commits reachable from `ref` touching any of `paths`, newest first, deduplicated, then `skip`/`limit`. */
export async function listCommits(
  ctx: Ctx,
  r: RepoRef,
  ref: string,
  query: { readonly paths: readonly string[]; readonly skip: number; readonly limit: number },
): Promise<CommitPage> {
  const head = await resolveCommit(ctx, r, ref);
  const prefixes = [...new Set(query.paths.map(cleanPath))];
  // The root prefix covers every other one: one stream is enough.
  const streams = (prefixes.includes('') ? [''] : prefixes).map(
    (p) => new CommitStream((page) => commitPage(ctx, r, head, p, page)),
  );
  const skip = Math.max(0, Math.floor(query.skip));
  const limit = Math.max(0, Math.floor(query.limit));
  const want = skip + limit + 1; // one more than needed tells whether more follow
  const seen = new Set<string>();
  const merged: CommitSummary[] = [];
  while (merged.length < want) {
    const heads = await Promise.all(streams.map((s) => s.peek()));
    let best = -1;
    heads.forEach((c, i) => {
      if (!c) return;
      const b = best >= 0 ? heads[best] : undefined;
      if (!b || time(c) > time(b)) best = i;
    });
    const pick = best >= 0 ? heads[best] : undefined;
    if (!pick) break;
    for (let i = 0; i < streams.length; i++) if (heads[i]?.sha === pick.sha) streams[i]?.shift();
    if (seen.has(pick.sha)) continue;
    seen.add(pick.sha);
    merged.push(pick);
  }
  return { commits: merged.slice(skip, skip + limit), hasMore: merged.length > skip + limit };
}

/** True when `sha` is an ancestor of (or equal to) `head`: compare sha...head is `ahead` or `identical`. */
function reachable(ctx: Ctx, r: RepoRef, sha: string, head: string): Promise<boolean> {
  if (sha === head) return Promise.resolve(true);
  return immutable(
    ctx,
    `reach:${r.key}:${sha}:${head}`,
    async () => {
      try {
        const res = await ctx.octokit.rest.repos.compareCommitsWithBasehead({
          ...charged(ctx),
          owner: r.owner,
          repo: r.repo,
          basehead: `${sha}...${head}`,
          per_page: 1,
        });
        return res.data.status === 'ahead' || res.data.status === 'identical';
      } catch (err) {
        // Unknown SHA or no common ancestor: not reachable.
        if (isHttpFailure(err) && (err.status === 404 || err.status === 422)) return false;
        throw err;
      }
    },
    () => 64,
  );
}

/** All pages of `GET commits/{sha}`, cached by SHA. */
function commitDetail(ctx: Ctx, r: RepoRef, sha: string): Promise<CommitDetail> {
  return immutable(
    ctx,
    `commit:${r.key}:${sha}`,
    async () => {
      let summary: CommitSummary | undefined;
      const files: CommitFile[] = [];
      for (let page = 1; page <= MAX_FILE_PAGES; page++) {
        const res = await ctx.octokit.rest.repos.getCommit({
          ...charged(ctx),
          owner: r.owner,
          repo: r.repo,
          ref: sha,
          page,
        });
        summary ??= toSummary(res.data as GhCommit);
        files.push(...(res.data.files ?? []).map((f) => toFile(f as GhFile)));
        if (!hasNextPage(res.headers.link) || (res.data.files ?? []).length === 0) break;
      }
      if (!summary) throw failure('not_found', `No commit ${sha}`);
      return { ...summary, files };
    },
    approxBytes,
  );
}

/** A commit with its files; only full SHAs, and with `reachableFrom` only ancestors of that branch. */
export async function getCommit(ctx: Ctx, r: RepoRef, sha: string, reachableFrom?: string): Promise<CommitDetail> {
  // One message for a prefix, an unknown SHA and an unreachable one: none may be told apart.
  const missing = failure('not_found', `No commit ${sha}`);
  if (!FULL_SHA.test(sha)) throw missing;
  const full = sha.toLowerCase();
  if (reachableFrom !== undefined) {
    let head: string;
    try {
      head = await resolveCommit(ctx, r, reachableFrom);
    } catch (err) {
      if (isNotFound(err)) throw missing;
      throw err;
    }
    if (!(await reachable(ctx, r, full, head))) throw missing;
  }
  try {
    return await commitDetail(ctx, r, full);
  } catch (err) {
    if (isHttpFailure(err) && (err.status === 404 || err.status === 422)) throw missing;
    throw err;
  }
}

/** The most files GitHub lists in one comparison (repository limits: "at most 300 files in a single diff"). */
const COMPARE_FILES_CAP = 300;

/** `GET compare/{base}...{head}`: commits oldest first (all pages, bounded), files of the three-dot diff. */
export async function compare(ctx: Ctx, r: RepoRef, base: string, head: string): Promise<Comparison> {
  const load = async (page: number): Promise<Comparison & { total: number }> => {
    const res = await ctx.octokit.rest.repos
      .compareCommitsWithBasehead({
        ...charged(ctx),
        owner: r.owner,
        repo: r.repo,
        basehead: `${base}...${head}`,
        per_page: PER_PAGE,
        page,
      })
      .catch((err: unknown) => {
        if (isHttpFailure(err) && (err.status === 404 || err.status === 422))
          throw failure('not_found', `Cannot compare ${base} with ${head}`);
        throw err;
      });
    const d = res.data;
    return {
      status: d.status,
      ahead_by: d.ahead_by,
      behind_by: d.behind_by,
      merge_base: d.merge_base_commit.sha,
      commits: d.commits.map((c) => toSummary(c as GhCommit)),
      files: (d.files ?? []).map((f) => toFile(f as GhFile)),
      // GitHub cuts the list at 300 files without saying so: a full list cannot be told from a cut one.
      files_complete: (d.files ?? []).length < COMPARE_FILES_CAP,
      total: d.total_commits,
    };
  };
  const first = await load(1);
  const commits = [...first.commits];
  const seen = new Set(commits.map((c) => c.sha));
  for (let page = 2; page <= MAX_COMPARE_PAGES && commits.length < first.total; page++) {
    const more = (await load(page)).commits.filter((c) => !seen.has(c.sha));
    if (more.length === 0) break;
    for (const c of more) seen.add(c.sha);
    commits.push(...more);
  }
  const { total: _total, ...rest } = first;
  return { ...rest, commits };
}

/** What changed between two commits, for the write path's rebase check. */
export interface Changes {
  readonly status: string;
  /** Paths touched (both sides of a rename). */
  readonly paths: readonly string[];
  /** False when GitHub capped the file list (300), so `paths` may miss some. */
  readonly complete: boolean;
  /** The head commit's tree when the comparison listed it. */
  readonly headTree?: string;
}

/** Files changed between two commits (three-dot compare), cached: both ends are SHAs. */
export async function changedPaths(ctx: Ctx, r: RepoRef, base: string, head: string): Promise<Changes> {
  return immutable(
    ctx,
    `changed:${r.key}:${base}:${head}`,
    async () => {
      const res = await ctx.octokit.rest.repos.compareCommitsWithBasehead({
        ...charged(ctx),
        owner: r.owner,
        repo: r.repo,
        basehead: `${base}...${head}`,
      });
      const files = res.data.files ?? [];
      const paths = files.flatMap((f) => (f.previous_filename ? [f.filename, f.previous_filename] : [f.filename]));
      const last = res.data.commits.at(-1);
      const headTree = last?.sha === head ? last.commit.tree.sha : undefined;
      const changes = { status: res.data.status, paths, complete: files.length < COMPARE_FILES_CAP };
      return headTree ? { ...changes, headTree } : changes;
    },
    approxBytes,
  );
}
