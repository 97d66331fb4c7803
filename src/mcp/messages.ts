import { assertNever } from '../core/index.js';
import type { UpstreamError } from '../upstream/types.js';

/**
 * What an agent reads when the upstream fails. Our own words, chosen per code: adapter messages are for operators
 * (logs), except where they only describe the agent's own request (invalid input, a write conflict).
 */
export function agentMessage(e: UpstreamError): string {
  switch (e.code) {
    case 'not_found':
      return 'Not found.';
    case 'empty_repository':
      return 'The repository has no commits yet.';
    case 'conflict':
      return `Conflict: ${e.message}`;
    case 'invalid':
      return `Invalid request: ${e.message}`;
    case 'too_large':
      return `Too large: ${e.message}`;
    case 'unauthorized':
      return 'The server could not authenticate to its upstream. Tell the operator; retrying will not help.';
    case 'rate_limited':
      return `The upstream is rate limited; retry after ${e.retryAfterSeconds ?? 60} s.`;
    case 'over_budget':
      return e.message;
    case 'unavailable':
      return 'The upstream is unavailable right now; retry in a moment.';
    default:
      return assertNever(e.code, 'upstream error code');
  }
}
