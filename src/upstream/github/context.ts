// What every operation module receives: the client, the cache and the logger. Built once per upstream in index.ts.
import type { RequestBudget } from '../types.js';
import type { ByteLru } from './cache.js';
import type { GitHubClient } from './client.js';
import { failure, isHttpFailure } from './errors.js';
import type { LogFn } from './logger.js';

export interface Ctx {
  readonly octokit: GitHubClient;
  readonly cache: ByteLru;
  readonly log: LogFn;
  /** Tails of the per-key queues used by `serial`. */
  readonly queues: Map<string, Promise<unknown>>;
  /** Loads in progress by cache key, so parallel readers of one object share one request. */
  readonly inflight: Map<string, Promise<unknown>>;
  /** The tool call's request budget, when the call came through `withBudget`. */
  readonly budget?: RequestBudget;
  /** Mutable refs resolved during this call: a ref read twice in one call is asked once, and reads agree. */
  readonly pinned?: Map<string, unknown>;
}

/** Per-request Octokit options: spread into every request so its attempts are charged to the call's budget. */
export function charged(ctx: Ctx): { request?: { budget: RequestBudget } } {
  return ctx.budget ? { request: { budget: ctx.budget } } : {};
}

/** True for a refusal of the call's request budget (another call's budget must not fail a shared load). */
export function isOverBudget(err: unknown): boolean {
  return (
    err instanceof Error &&
    err.name === 'UpstreamFailure' &&
    (err as { error?: { code?: string } }).error?.code === 'over_budget'
  );
}

/**
 * Runs `fn` after every earlier `serial` call with the same key has settled. Writes to one branch from this process
 * queue up instead of racing each other into not-a-fast-forward rebuilds; other writers are still handled by CAS.
 */
export function serial<T>(ctx: Ctx, key: string, fn: () => Promise<T>): Promise<T> {
  const prev = ctx.queues.get(key) ?? Promise.resolve();
  const run = prev.then(fn, fn);
  const tail = run.catch(() => undefined);
  ctx.queues.set(key, tail);
  void tail.then(() => {
    if (ctx.queues.get(key) === tail) ctx.queues.delete(key);
  });
  return run;
}

/** A parsed `owner/name`; `key` is the case-folded name used in cache keys (GitHub names are case-insensitive). */
export interface RepoRef {
  readonly owner: string;
  readonly repo: string;
  readonly key: string;
}

// GitHub owners and repositories: letters, digits, '-', '_' and '.', never starting with a dot.
const NAME = /^[A-Za-z0-9_-][A-Za-z0-9_.-]*$/;
/** A full 40-hex commit id (abbreviations are never accepted: they would let callers probe for SHAs). */
export const FULL_SHA = /^[0-9a-f]{40}$/i;

/** Parses `owner/name`; anything else is `invalid`. */
export function parseRepo(name: string): RepoRef {
  const parts = name.split('/');
  const [owner, repo] = parts;
  if (parts.length !== 2 || !owner || !repo || !NAME.test(owner) || !NAME.test(repo)) {
    throw failure('invalid', 'GitHub repositories are named owner/name');
  }
  return { owner, repo: repo.replace(/\.git$/, ''), key: `${owner}/${repo.replace(/\.git$/, '')}`.toLowerCase() };
}

/** Strips leading/trailing slashes: '' is the root. */
export function cleanPath(path: string): string {
  return path.replace(/^\/+|\/+$/g, '');
}

/** True when a `link` header has a next page. */
export function hasNextPage(link: unknown): boolean {
  return typeof link === 'string' && /<[^<>]+>;\s*rel="next"/.test(link);
}

/**
 * A GET made conditional on the last ETag seen for `key`: a 304 (free on GitHub's primary limit) answers from the
 * remembered value. `fetcher` receives the extra headers and returns the value to keep plus the response headers.
 */
export async function conditionalGet<T>(
  ctx: Ctx,
  key: string,
  fetcher: (headers: Record<string, string>) => Promise<{ value: T; headers: Record<string, unknown> }>,
  bytes: (value: T) => number,
): Promise<T> {
  if (ctx.pinned?.has(key)) return ctx.pinned.get(key) as T;
  const cacheKey = `etag:${key}`;
  const prev = ctx.cache.peek<{ etag: string; value: T }>(cacheKey);
  let value: T;
  try {
    const res = await fetcher(prev ? { 'if-none-match': prev.etag } : {});
    const etag = res.headers['etag'];
    if (typeof etag === 'string' && etag)
      ctx.cache.set(cacheKey, { etag, value: res.value }, bytes(res.value) + etag.length * 2 + 64);
    else ctx.cache.delete(cacheKey);
    value = res.value;
  } catch (err) {
    if (!(prev && isHttpFailure(err) && err.status === 304)) throw err;
    value = prev.value;
  }
  ctx.pinned?.set(key, value);
  return value;
}

/** Returns the cached immutable value for `key`, or loads (once, however many ask at the same time) and caches it. */
export async function immutable<T>(
  ctx: Ctx,
  key: string,
  load: () => Promise<T>,
  bytes: (value: T) => number,
): Promise<T> {
  const hit = ctx.cache.get<T>(key);
  if (hit !== undefined) return hit;
  const pending = ctx.inflight.get(key) as Promise<T> | undefined;
  if (pending) {
    try {
      return await pending;
    } catch (err) {
      // The call that started the load ran out of budget: that is its answer, not ours. Load on our own budget.
      if (!isOverBudget(err)) throw err;
      const again = ctx.inflight.get(key) as Promise<T> | undefined;
      if (again && again !== pending) return again;
    }
  }
  const run = load().then((value) => {
    ctx.cache.set(key, value, bytes(value));
    return value;
  });
  ctx.inflight.set(key, run);
  try {
    return await run;
  } finally {
    ctx.inflight.delete(key);
  }
}

/** Runs `fn` over `items` with at most `limit` in flight, keeping order. */
export async function mapLimit<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i] as T, i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}
