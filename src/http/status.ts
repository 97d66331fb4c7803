import { assertNever } from '../core/index.js';
import type { CallOutcome, DenyClass } from '../mcp/index.js';
import type { ChangeError } from '../registry/perimeters.js';
import type { UpstreamErrorCode } from '../upstream/types.js';

/** The one place HTTP status codes are chosen for operator API failures. */
export function statusFor(code: ChangeError | 'unauthorized' | 'bad_request' | 'unavailable'): number {
  switch (code) {
    case 'unavailable':
      return 503;
    case 'invalid':
    case 'bad_request':
      return 400;
    case 'unauthorized':
      return 401;
    case 'not_found':
      return 404;
    case 'exists':
    case 'conflict':
      return 409;
    case 'upstream':
      return 502;
  }
}

/** An HTTP failure: status, the body's `code`, and the seconds for `Retry-After` when waiting helps. */
export interface HttpFailure {
  readonly status: number;
  readonly code: string;
  readonly message: string;
  readonly retryAfterSeconds?: number;
}

/**
 * The status of an upstream failure. Our credential or the upstream being down is the gateway's problem (502/503),
 * never the caller's; content the upstream rejected is the caller's (400/409/422); a rate limit upstream asks the
 * caller to slow down (429 with the upstream's wait).
 */
export function upstreamStatus(code: UpstreamErrorCode): number {
  switch (code) {
    case 'not_found':
      return 404;
    case 'empty_repository':
    case 'conflict':
      return 409;
    case 'invalid':
      return 400;
    case 'too_large':
      return 422;
    case 'unauthorized':
      return 502;
    case 'rate_limited':
    case 'over_budget':
      return 429;
    case 'unavailable':
      return 503;
    default:
      return assertNever(code, 'upstream error code');
  }
}

/** The status of a refusal in front of the upstream. */
function denyStatus(cls: DenyClass): number {
  switch (cls) {
    case 'invalid':
      return 400;
    case 'denied':
      return 403;
    case 'refused':
    case 'too_large':
      return 422;
    case 'rate_limited':
    case 'busy':
      return 429;
    case 'unavailable':
      return 503;
    default:
      return assertNever(cls, 'deny class');
  }
}

/** The HTTP answer for a tool call's outcome that is not an answer: the one place `/api` maps outcomes to statuses. */
export function outcomeFailure(o: Exclude<CallOutcome, { kind: 'allow' | 'propose' }>): HttpFailure {
  const retry = (s: number | undefined) => (s === undefined ? {} : { retryAfterSeconds: s });
  switch (o.kind) {
    case 'invisible':
    case 'missing':
      // One answer for both: the operator asks as the perimeter's agent, and invisible means indistinguishable.
      return { status: 404, code: 'not_found', message: o.message };
    case 'deny': {
      const status = denyStatus(o.class);
      return status === 429 || status === 503
        ? { status, code: o.class, message: o.message, retryAfterSeconds: o.retryAfterSeconds ?? 1 }
        : { status, code: o.class, message: o.message };
    }
    case 'error': {
      const status = upstreamStatus(o.class);
      // A per-call budget is spent for good (narrow the call); the hourly share comes back after the wait.
      if (o.class === 'over_budget' && o.retryAfterSeconds === undefined)
        return { status: 422, code: o.class, message: o.message };
      return {
        status,
        code: o.class,
        message: o.message,
        ...retry(o.retryAfterSeconds ?? (status === 503 ? 1 : undefined)),
      };
    }
    default:
      return assertNever(o, 'call outcome');
  }
}

/** JSON-RPC error body for MCP routes (id null: the request may not even have been parsed). */
export function rpcError(
  code: number,
  message: string,
): { jsonrpc: '2.0'; error: { code: number; message: string }; id: null } {
  return { jsonrpc: '2.0', error: { code, message }, id: null };
}

/** The single answer for an unknown perimeter, a branch outside the allowlist, or a disabled surface. */
export const NOT_FOUND_BODY = rpcError(-32001, 'Not found');
