// The GitHub upstream: `createGitHubUpstream` wires the client, cache and operation modules, and is the boundary
// where every failure becomes an UpstreamError (through errors.ts, once).
import type { UpResult, Upstream } from '../types.js';
import { ByteLru } from './cache.js';
import { createClient, type Counters, type RateSnapshot } from './client.js';
import { parseRepo, type Ctx } from './context.js';
import { isHttpFailure, translate, UpstreamFailure } from './errors.js';
import { readFiles } from './files.js';
import { health } from './health.js';
import * as pulls from './pulls.js';
import { compare, getCommit, listCommits } from './history.js';
import { makeRedactor, safeLog, type LogFn } from './logger.js';
import { branchHead, defaultBranch, listBranches, listRepos } from './refs.js';
import { getTree } from './tree.js';
import { isAncestor } from './ancestry.js';
import { createSearchIndex } from './search-index.js';
import { FULL_SHA } from './context.js';
import { failure } from './errors.js';
import { commitFiles } from './write.js';

export type { LogFn, LogLevel } from './logger.js';
export type { RateSnapshot } from './client.js';

export interface GitHubUpstreamOptions {
  readonly token: string;
  /** Default https://api.github.com; GitHub Enterprise Server: https://host/api/v3. */
  readonly baseUrl?: string;
  readonly log?: LogFn;
  readonly fetch?: typeof fetch;
  /** Byte budget of the immutable-object cache (default 64 MiB). */
  readonly cacheBytes?: number;
  /** Longest rate-limit wait that is sat out before answering `rate_limited` (default 30 s). */
  readonly maxRateLimitWaitSeconds?: number;
  /** Retries of 5xx and network failures (default 3). */
  readonly maxRetries?: number;
  readonly requestTimeoutMs?: number;
  /** Base of plugin-retry's quadratic back-off: 1×, 4×, 9× this (default 1000 ms). For tests. */
  readonly retryDelayMs?: number;
  /** Minimum gap between mutating requests (default 1000 ms, GitHub's advice). For tests. */
  readonly writeSpacingMs?: number;
  /** Where the search index keeps blob texts across restarts (under the state dir); absent = memory only. */
  readonly searchDir?: string;
  /** Bytes the search index may keep on disk (default 1 GiB). */
  readonly searchDiskBytes?: number;
  /** GitHub's budget shared by every instance on one token: what this one sees goes in, the latest from any comes out. */
  readonly sharedQuota?: { saw(rate: RateSnapshot): void; last(): RateSnapshot | undefined };
}

export type GitHubUpstream = Upstream & { stats(): { requests: number; cacheHits: number; notModified: number } };

/** Builds the GitHub adapter of the Upstream port. */
export function createGitHubUpstream(opts: GitHubUpstreamOptions): GitHubUpstream {
  const redact = makeRedactor(opts.token);
  const log = safeLog(opts.log, redact);
  const counters: Counters = { requests: 0, cacheHits: 0, notModified: 0 };
  let lastRate: RateSnapshot | undefined;
  const octokit = createClient({
    token: opts.token,
    baseUrl: (opts.baseUrl ?? 'https://api.github.com').replace(/\/+$/, ''),
    log,
    fetch: opts.fetch ?? globalThis.fetch,
    maxRateLimitWaitSeconds: opts.maxRateLimitWaitSeconds ?? 30,
    maxRetries: opts.maxRetries ?? 3,
    retryDelayMs: opts.retryDelayMs ?? 1000,
    requestTimeoutMs: opts.requestTimeoutMs ?? 30_000,
    writeSpacingMs: opts.writeSpacingMs ?? 1000,
    counters,
    onRate: (rate) => {
      lastRate = rate;
      opts.sharedQuota?.saw(rate);
    },
    ...(opts.sharedQuota ? { sharedRate: () => opts.sharedQuota?.last() } : {}),
  });
  const cache = new ByteLru(opts.cacheBytes ?? 64 * 1024 * 1024, () => {
    counters.cacheHits += 1;
  });
  const shared: Ctx = { octokit, cache, log, queues: new Map(), inflight: new Map() };
  const search = createSearchIndex({
    ...(opts.searchDir ? { dir: opts.searchDir } : {}),
    ...(opts.searchDiskBytes ? { diskBytes: opts.searchDiskBytes } : {}),
  });

  /** Runs one operation; anything thrown is translated once, here. */
  const guard = async <T>(op: string, fn: () => Promise<T>): Promise<UpResult<T>> => {
    try {
      return { ok: true, value: await fn() };
    } catch (err) {
      const error = translate(err, redact);
      const expected =
        isHttpFailure(err) ||
        err instanceof UpstreamFailure ||
        (err instanceof Error && /^(Abort|Timeout)Error$/.test(err.name));
      if (!expected) {
        // Not an HTTP answer: most likely a bug here. Keep the cause for the operator (scrubbed like every line).
        log('error', `github ${op} failed unexpectedly`, { error: err instanceof Error ? err.message : String(err) });
      } else {
        log(error.code === 'unavailable' ? 'warn' : 'debug', `github ${op} failed: ${error.message}`, {
          code: error.code,
        });
      }
      return { ok: false, error };
    }
  };

  const unpinned = ({ pinned: _pinned, ...rest }: Ctx): Ctx => rest;
  // The method table over one context: the shared one, or a call's own (its budget, its pinned refs).
  const methods = (ctx: Ctx): Upstream => ({
    kind: 'github',
    listRepos: () => guard('listRepos', () => listRepos(ctx)),
    defaultBranch: (repo) => guard('defaultBranch', () => defaultBranch(ctx, parseRepo(repo))),
    listBranches: (repo) => guard('listBranches', () => listBranches(ctx, parseRepo(repo))),
    branchHead: (repo, branch) => guard('branchHead', () => branchHead(ctx, parseRepo(repo), branch)),
    getTree: (repo, ref, path) => guard('getTree', () => getTree(ctx, parseRepo(repo), ref, path)),
    readFiles: (repo, ref, paths, options) =>
      guard('readFiles', () => readFiles(ctx, parseRepo(repo), ref, paths, redact, options)),
    listCommits: (repo, ref, query) => guard('listCommits', () => listCommits(ctx, parseRepo(repo), ref, query)),
    getCommit: (repo, sha, reachableFrom) =>
      guard('getCommit', () => getCommit(ctx, parseRepo(repo), sha, reachableFrom)),
    compare: (repo, base, head) => guard('compare', () => compare(ctx, parseRepo(repo), base, head)),
    isAncestor: (repo, ancestor, head) => guard('isAncestor', () => isAncestor(ctx, parseRepo(repo), ancestor, head)),
    grep: (repo, commit, request) =>
      guard('grep', async () => {
        if (!FULL_SHA.test(commit)) throw failure('not_found', 'No such commit');
        return (await search.search(ctx, parseRepo(repo), request)).result;
      }),
    // A write re-reads the head after a lost race: it must see the ref move, so nothing is pinned for it.
    commitFiles: (repo, branch, request) =>
      guard('commitFiles', () => commitFiles(unpinned(ctx), parseRepo(repo), branch, request, redact)),
    health: () => health(ctx, () => lastRate, redact),
    close: async () => {
      cache.clear();
    },
    withBudget: (budget) => methods({ ...ctx, budget, pinned: new Map() }),
    pulls: {
      // Opening a PR writes, like commitFiles: nothing pinned, so a PR read after it in one call is asked again.
      create: (repo, request) => guard('pulls.create', () => pulls.createPull(unpinned(ctx), parseRepo(repo), request)),
      list: (repo, query) => guard('pulls.list', () => pulls.listPulls(ctx, parseRepo(repo), query)),
      get: (repo, n) => guard('pulls.get', () => pulls.getPull(ctx, parseRepo(repo), n)),
      files: (repo, n) => guard('pulls.files', () => pulls.listPullFiles(ctx, parseRepo(repo), n)),
      reviews: (repo, n) => guard('pulls.reviews', () => pulls.listReviews(ctx, parseRepo(repo), n)),
      reviewComments: (repo, n) =>
        guard('pulls.reviewComments', () => pulls.listReviewComments(ctx, parseRepo(repo), n)),
      comments: (repo, n) => guard('pulls.comments', () => pulls.listIssueComments(ctx, parseRepo(repo), n)),
      checkRuns: (repo, sha) => guard('pulls.checkRuns', () => pulls.listCheckRuns(ctx, parseRepo(repo), sha)),
      statuses: (repo, sha) => guard('pulls.statuses', () => pulls.listStatuses(ctx, parseRepo(repo), sha)),
    },
  });
  return { ...methods(shared), stats: () => ({ ...counters }) };
}
