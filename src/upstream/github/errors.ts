// The one place where Octokit failures become UpstreamErrors. Every public method funnels its exceptions through
// `translate`, so status codes are interpreted once and messages are built here, never copied from a request.
import type { UpstreamError, UpstreamErrorCode } from '../types.js';

/**
 * The parts of Octokit's RequestError we read. Matched structurally (name + numeric status) rather than with
 * `instanceof`, because @octokit/request-error is a transitive dependency that may exist in several copies.
 */
export interface HttpFailure extends Error {
  readonly status: number;
  readonly response?: { readonly headers: Record<string, unknown>; readonly data: unknown };
}

/** True for an Octokit RequestError (an HTTP answer or a network failure wrapped as status 500). */
export function isHttpFailure(err: unknown): err is HttpFailure {
  return err instanceof Error && err.name === 'HttpError' && typeof (err as { status?: unknown }).status === 'number';
}

/** A failure the adapter decided on itself (bad input, missing path, conflict); carried to the boundary as-is. */
export class UpstreamFailure extends Error {
  readonly error: UpstreamError;

  constructor(error: UpstreamError) {
    super(error.message);
    this.error = error;
    this.name = 'UpstreamFailure';
  }
}

/** Builds an UpstreamFailure to throw. */
export function failure(code: UpstreamErrorCode, message: string, retryAfterSeconds?: number): UpstreamFailure {
  return new UpstreamFailure(
    retryAfterSeconds === undefined ? { code, message } : { code, message, retryAfterSeconds },
  );
}

/** GitHub's own `message` from an error body (not Octokit's composed text with docs links). */
export function githubMessage(err: unknown): string {
  if (!isHttpFailure(err)) return '';
  const data: unknown = err.response?.data;
  if (data && typeof data === 'object' && 'message' in data && typeof data.message === 'string') return data.message;
  return '';
}

function header(err: HttpFailure, name: string): string | undefined {
  const v = err.response?.headers[name];
  return v === undefined || v === null ? undefined : String(v);
}

/** True for a primary or secondary rate-limit answer (what plugin-throttling keys on, plus 429). */
export function isRateLimit(err: unknown): boolean {
  if (!isHttpFailure(err)) return false;
  if (err.status === 429) return true;
  if (err.status !== 403) return false;
  return (
    header(err, 'x-ratelimit-remaining') === '0' ||
    /\bsecondary rate\b/i.test(err.message) ||
    header(err, 'retry-after') !== undefined
  );
}

/** Seconds until GitHub will accept requests again: retry-after, else the primary reset, else a minute. */
export function retryAfterSeconds(err: HttpFailure, now: number = Date.now()): number {
  const after = Number(header(err, 'retry-after'));
  if (Number.isFinite(after) && after > 0) return Math.ceil(after);
  if (header(err, 'x-ratelimit-remaining') === '0') {
    const reset = Number(header(err, 'x-ratelimit-reset'));
    if (Number.isFinite(reset) && reset > 0) return Math.max(1, Math.ceil(reset - now / 1000));
  }
  return 60;
}

function tooLarge(err: HttpFailure): boolean {
  const data: unknown = err.response?.data;
  if (!data || typeof data !== 'object' || !('errors' in data) || !Array.isArray(data.errors)) return false;
  return data.errors.some((e: unknown) => typeof e === 'object' && e !== null && 'code' in e && e.code === 'too_large');
}

/**
 * Turns anything thrown below a public method into an UpstreamError. `redact` scrubs the token from the few bits of
 * GitHub text that are passed on (422 reasons).
 */
export function translate(err: unknown, redact: (s: string) => string): UpstreamError {
  if (err instanceof UpstreamFailure) return { ...err.error, message: redact(err.error.message) };
  if (isHttpFailure(err)) {
    const status = err.status;
    if (isRateLimit(err)) {
      const after = retryAfterSeconds(err);
      return {
        code: 'rate_limited',
        message: `GitHub rate limit reached; retry after ${after} s`,
        retryAfterSeconds: after,
      };
    }
    if (status === 401) return { code: 'unauthorized', message: 'GitHub rejected the token; check it and its scopes' };
    if (status === 403 && tooLarge(err))
      return { code: 'too_large', message: 'The object is too large for the GitHub API' };
    if (status === 403) {
      return {
        code: 'unauthorized',
        message: 'GitHub refused access with this token; check its scopes and the repository permissions',
      };
    }
    if (status === 404) return { code: 'not_found', message: 'Not found on GitHub' };
    if (status === 409) {
      if (/empty/i.test(githubMessage(err)))
        return { code: 'empty_repository', message: 'The repository is empty (it has no commits yet)' };
      return { code: 'conflict', message: 'GitHub reported a conflict; re-read and retry' };
    }
    if (status === 400 || status === 422) {
      const reason = redact(githubMessage(err)).slice(0, 200);
      return {
        code: 'invalid',
        message: reason ? `GitHub rejected the request: ${reason}` : 'GitHub rejected the request',
      };
    }
    if (status >= 500 || status === 0) {
      return { code: 'unavailable', message: `GitHub is unavailable (HTTP ${status}); retry later` };
    }
    return { code: 'unavailable', message: `Unexpected answer from GitHub (HTTP ${status}); retry later` };
  }
  if (err instanceof Error && (err.name === 'AbortError' || err.name === 'TimeoutError')) {
    return { code: 'unavailable', message: 'GitHub did not answer in time; retry later' };
  }
  return { code: 'unavailable', message: 'Unexpected failure talking to GitHub; retry later' };
}
