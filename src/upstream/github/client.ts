// Composes Octokit once (throttling before retry, so 429s reach the throttling handlers) and builds one client per
// upstream: our logger as Octokit's `log`, an injectable fetch wrapped to count requests, time out, and remember
// the last rate-limit headers.
import { retry } from '@octokit/plugin-retry';
import { throttling } from '@octokit/plugin-throttling';
import { Octokit } from '@octokit/rest';
import type { RequestBudget } from '../types.js';
import { isHttpFailure, UpstreamFailure } from './errors.js';
import { octokitLog, type LogFn } from './logger.js';
import { writeSpacing } from './spacing.js';

/**
 * Charges the call's budget (passed as `request.budget`) for each attempt. Registered before throttling and retry so
 * it is the innermost wrap: every retry passes through it, and a refusal (no `status`) is never retried by either.
 */
function budgetPlugin(octokit: { hook: Octokit['hook'] }): void {
  octokit.hook.wrap('request', async (request, options) => {
    const budget = (options.request as { budget?: RequestBudget } | undefined)?.budget;
    const refusal = await budget?.take();
    if (refusal) throw new UpstreamFailure(refusal);
    try {
      return await request(options);
    } catch (err) {
      // A 304 costs nothing on GitHub's primary limit: it does not count against the perimeter's share either.
      if (budget && isHttpFailure(err) && err.status === 304) budget.refund();
      throw err;
    }
  });
}

/** The one composed Octokit class. */
export const GitHubOctokit = Octokit.plugin(budgetPlugin, throttling, retry);
export type GitHubClient = InstanceType<typeof GitHubOctokit>;

/** Counters behind `stats()`. */
export interface Counters {
  requests: number;
  cacheHits: number;
  notModified: number;
}

/** The last `x-ratelimit-*` headers seen on any response. */
export interface RateSnapshot {
  remaining: number;
  limit: number;
  resetAt: string;
}

export interface ClientOptions {
  readonly token: string;
  readonly baseUrl: string;
  readonly log: LogFn;
  readonly fetch: typeof fetch;
  readonly maxRateLimitWaitSeconds: number;
  readonly maxRetries: number;
  readonly retryDelayMs: number;
  readonly requestTimeoutMs: number;
  readonly writeSpacingMs: number;
  readonly counters: Counters;
  readonly onRate: (rate: RateSnapshot) => void;
  /** The budget as last seen by any instance sharing the token (absent: only this process's own answers count). */
  readonly sharedRate?: () => RateSnapshot | undefined;
}

/**
 * GitHub's own answer to a spent budget, made here without sending: another instance on the same token saw it spent
 * until `reset`. The throttling plugin then waits or gives up exactly as it does for the real answer, and N instances
 * do not each run into the limit.
 */
function spentAnswer(rate: RateSnapshot, resetMs: number): Response {
  return new Response(
    JSON.stringify({ message: 'API rate limit exceeded (budget spent, as another instance on this token saw).' }),
    {
      status: 403,
      headers: {
        'content-type': 'application/json; charset=utf-8',
        'x-ratelimit-limit': String(rate.limit),
        'x-ratelimit-remaining': '0',
        'x-ratelimit-reset': String(Math.ceil(resetMs / 1000)),
      },
    },
  );
}

type ThrottleOptions = NonNullable<NonNullable<ConstructorParameters<typeof GitHubOctokit>[0]>['throttle']>;
type ThrottleWriteGroup = ThrottleOptions extends { write?: infer W } ? W : never;

// Statuses plugin-retry must leave alone: deterministic answers (409 empty repository would otherwise cost three
// retries), and 403/429 which belong to the throttling plugin.
const DO_NOT_RETRY = [400, 401, 403, 404, 409, 410, 422, 429, 451];
// Rate-limit retries per request, each waiting at most maxRateLimitWaitSeconds.
const RATE_LIMIT_RETRIES = 2;

/** Wraps fetch: counts requests and 304s, applies the per-request timeout, records rate-limit headers. */
function instrumentedFetch(o: ClientOptions): typeof fetch {
  return async (input, init) => {
    const known = o.sharedRate?.();
    const resetMs = known ? Date.parse(known.resetAt) : NaN;
    if (known && known.remaining <= 0 && resetMs > Date.now()) return spentAnswer(known, resetMs);
    o.counters.requests += 1;
    const timeout = AbortSignal.timeout(o.requestTimeoutMs);
    const signal = init?.signal ? AbortSignal.any([init.signal, timeout]) : timeout;
    const res = await o.fetch(input, { ...init, signal });
    if (res.status === 304) o.counters.notModified += 1;
    const remaining = Number(res.headers.get('x-ratelimit-remaining') ?? NaN);
    const limit = Number(res.headers.get('x-ratelimit-limit') ?? NaN);
    const reset = Number(res.headers.get('x-ratelimit-reset') ?? NaN);
    if (Number.isFinite(remaining) && Number.isFinite(limit) && Number.isFinite(reset)) {
      o.onRate({ remaining, limit, resetAt: new Date(reset * 1000).toISOString() });
    }
    return res;
  };
}

/** Builds the Octokit client for one upstream. */
export function createClient(o: ClientOptions): GitHubClient {
  const log = o.log;
  const onLimit =
    (kind: 'primary' | 'secondary') =>
    (
      retryAfter: number,
      options: { method?: string; url?: string },
      _octokit: unknown,
      retryCount: number,
    ): boolean => {
      const wait = retryCount < RATE_LIMIT_RETRIES && retryAfter <= o.maxRateLimitWaitSeconds;
      log(
        'warn',
        wait ? `GitHub ${kind} rate limit; waiting ${retryAfter} s` : `GitHub ${kind} rate limit; giving up`,
        {
          method: options.method ?? '',
          route: options.url ?? '',
          retryAfter,
          retryCount,
        },
      );
      return wait;
    };
  return new GitHubOctokit({
    auth: o.token,
    baseUrl: o.baseUrl,
    userAgent: 'git-blinder',
    log: octokitLog(log),
    request: { fetch: instrumentedFetch(o) },
    retry: { doNotRetry: DO_NOT_RETRY, retries: o.maxRetries, retryAfterBaseValue: o.retryDelayMs },
    throttle: {
      onRateLimit: onLimit('primary'),
      onSecondaryRateLimit: onLimit('secondary'),
      // The plugin's default group is module-global with a fixed 1 s spacing; ours is per client and configurable.
      write: writeSpacing(o.writeSpacingMs) as unknown as ThrottleWriteGroup,
      // Content that notifies people (opening a pull request) is spaced 3× wider, as the plugin's own group does
      // (3 s by default), but per client like `write`.
      notifications: writeSpacing(o.writeSpacingMs * 3) as unknown as ThrottleWriteGroup,
    },
  });
}
