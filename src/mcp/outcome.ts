import { assertNever } from '../core/index.js';
import type { UpstreamErrorCode } from '../upstream/types.js';

/** Why the policy (or a limit in front of the upstream) refused an allowed-to-exist call. */
export type DenyClass =
  | 'denied' // outside the write scope, or a write guard said no
  | 'invalid' // the arguments are malformed (a path with `..`, a bad shape)
  | 'refused' // refused on content after the policy allowed it (binary, a credential in a write, a per-call limit)
  | 'rate_limited' // this perimeter's calls or commits budget is spent; retry later
  | 'busy' // this perimeter's lane and queue are full; retry in a moment
  | 'too_large' // the answer is over this perimeter's answer cap
  | 'unavailable'; // the shared store has been silent too long: the perimeter may have been narrowed elsewhere; retry

/** An upstream failure after the policy allowed the call (a missing object is `missing`, not an error). */
export type ErrorClass = Exclude<UpstreamErrorCode, 'not_found'>;

/**
 * The one result of a tool call, before any surface sees it. Each surface maps it exactly once, with an exhaustive
 * switch: MCP tool result (result.ts), audit record (invoke.ts `auditOf`), HTTP status (http/status.ts). A new kind
 * fails to compile in each of them until it is handled.
 */
export type CallOutcome =
  | {
      readonly kind: 'allow';
      readonly value: Record<string, unknown>;
      readonly text: string;
      readonly bytes: number;
      readonly commit?: string;
    }
  /** Allowed, and held for a person's approval: nothing was written; the answer names the pending proposal. */
  | {
      readonly kind: 'propose';
      readonly value: Record<string, unknown>;
      readonly text: string;
      readonly bytes: number;
      readonly proposal: string;
    }
  | { readonly kind: 'deny'; readonly class: DenyClass; readonly message: string; readonly retryAfterSeconds?: number }
  /** The policy hid it (or there is no binding): answered exactly as `missing` is, so the two read the same. */
  | { readonly kind: 'invisible'; readonly message: string }
  /** Allowed, and it does not exist upstream. */
  | { readonly kind: 'missing'; readonly message: string }
  | {
      readonly kind: 'error';
      readonly class: ErrorClass;
      readonly message: string;
      readonly retryAfterSeconds?: number;
    };

/** The audit's verdict and result class for an outcome (strings the ledger has always stored). */
export function auditOf(o: CallOutcome): { verdict: 'allow' | 'deny' | 'invisible' | 'error'; result: string } {
  switch (o.kind) {
    case 'allow':
      return { verdict: 'allow', result: 'ok' };
    case 'propose':
      return { verdict: 'allow', result: 'proposed' };
    case 'deny':
      return { verdict: 'deny', result: o.class };
    case 'invisible':
      return { verdict: 'invisible', result: 'not_found' };
    case 'missing':
      return { verdict: 'allow', result: 'not_found' };
    case 'error':
      return { verdict: 'error', result: o.class };
    default:
      return assertNever(o, 'call outcome');
  }
}
