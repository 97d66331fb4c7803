// health(): `GET /rate_limit` (free on GitHub's primary limit) plus the last rate-limit headers seen anywhere.
import type { UpstreamHealth } from '../types.js';
import type { RateSnapshot } from './client.js';
import type { Ctx } from './context.js';
import { isHttpFailure, translate } from './errors.js';

/** Reachability and the core rate-limit budget. */
export async function health(
  ctx: Ctx,
  lastRate: () => RateSnapshot | undefined,
  redact: (s: string) => string,
): Promise<UpstreamHealth> {
  try {
    const res = await ctx.octokit.rest.rateLimit.get();
    const core = res.data.resources.core;
    const rateLimit = {
      remaining: core.remaining,
      limit: core.limit,
      resetAt: new Date(core.reset * 1000).toISOString(),
    };
    return { ok: true, detail: `GitHub reachable; ${core.remaining}/${core.limit} requests left this hour`, rateLimit };
  } catch (err) {
    // GitHub Enterprise Server answers 404 here when rate limiting is switched off: reachable, no budget to report.
    if (isHttpFailure(err) && err.status === 404)
      return { ok: true, detail: 'GitHub reachable; rate limiting is not enabled' };
    const error = translate(err, redact);
    const rate = lastRate();
    return rate ? { ok: false, detail: error.message, rateLimit: rate } : { ok: false, detail: error.message };
  }
}
