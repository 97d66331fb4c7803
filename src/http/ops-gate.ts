import { isIPv6 } from 'node:net';
import { opsTokenTooShort, sameSecret } from './auth.js';

// Every check of the ops token, on every surface (/api, /mcp/root, GET /mcp, the /ui sign-in), goes through one gate:
// one count of failures per source, so switching surfaces buys a guesser nothing, and one place that reports each
// check to the audit ledger.

/** Where the ops token was checked. */
export type OpsSurface = 'api' | 'root' | 'web';

/** A check's outcome. `wait`: the source is backing off; the token was not even compared (no oracle). */
export type OpsCheck = { kind: 'ok' } | { kind: 'wrong' } | { kind: 'wait'; retryAfterSeconds: number };

/** One check, as the audit ledger records it. */
export interface OpsCheckEvent {
  readonly surface: OpsSurface;
  /** `METHOD /path` of the request. */
  readonly route: string;
  /** The source address (IPv6: its /64, the block one host usually holds). */
  readonly source: string;
  readonly outcome: OpsCheck['kind'];
  readonly at: string;
}

export interface OpsGateOptions {
  readonly token: string;
  /** Each check (absent: nothing recorded). */
  readonly record?: (e: OpsCheckEvent) => void;
  readonly now?: () => number;
  /** Wrong tokens a source may send before it backs off (default 5; a typo or two costs nothing). */
  readonly freeFailures?: number;
  /** The first back-off; each further failure doubles it (default 1 s). */
  readonly baseDelayMs?: number;
  /** The longest back-off (default 15 minutes). */
  readonly maxDelayMs?: number;
  /** Failures older than this are forgotten (default 15 minutes after the last one). */
  readonly windowMs?: number;
  /** Sources remembered at once; the quietest is forgotten first (default 10,000). */
  readonly maxSources?: number;
}

interface SourceState {
  failures: number;
  last: number;
  blockedUntil: number;
}

/** The per-source key: IPv4 (also IPv4-mapped IPv6) as is, IPv6 by its /64 so one host cannot rotate addresses. */
export function sourceKey(address: string | undefined): string {
  if (address === undefined || address === '') return 'unknown';
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped?.[1]) return mapped[1];
  if (!isIPv6(address)) return address;
  const [head = '', tail = ''] = address.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === '' ? [] : tail.split(':');
  const full = address.includes('::')
    ? [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right]
    : left;
  return `${full
    .slice(0, 4)
    .map((g) => g.replace(/^0+(?=.)/, '').toLowerCase())
    .join(':')}::/64`;
}

/**
 * Checks the ops token with per-source back-off: after `freeFailures` wrong tokens from one source within the window,
 * each further failure blocks that source for a doubling delay, and while it is blocked every attempt, the right token
 * included, is answered `wait` without being compared. A right token outside a block clears the source's count.
 */
export class OpsGate {
  private readonly token: string;
  private readonly sources = new Map<string, SourceState>();
  private readonly now: () => number;
  private readonly free: number;
  private readonly baseMs: number;
  private readonly maxMs: number;
  private readonly windowMs: number;
  private readonly maxSources: number;
  private readonly record: ((e: OpsCheckEvent) => void) | undefined;

  constructor(o: OpsGateOptions) {
    const short = opsTokenTooShort(o.token);
    // The CLI refuses a short token with a message naming where it came from; reaching here with one is a bug.
    if (short) throw new Error(`ops token ${short}`);
    this.token = o.token;
    this.now = o.now ?? Date.now;
    this.free = o.freeFailures ?? 5;
    this.baseMs = o.baseDelayMs ?? 1_000;
    this.maxMs = o.maxDelayMs ?? 15 * 60_000;
    this.windowMs = o.windowMs ?? 15 * 60_000;
    this.maxSources = o.maxSources ?? 10_000;
    this.record = o.record;
  }

  /** Checks `given` for a request from `address`; records the check unless `audit` is false (/api records its own). */
  check(
    given: string | undefined,
    where: { surface: OpsSurface; route: string; address: string | undefined; audit?: boolean },
  ): OpsCheck {
    const t = this.now();
    const source = sourceKey(where.address);
    const s = this.live(source, t);
    let out: OpsCheck;
    if (s && s.blockedUntil > t) {
      out = { kind: 'wait', retryAfterSeconds: Math.max(1, Math.ceil((s.blockedUntil - t) / 1000)) };
    } else if (sameSecret(given, this.token)) {
      this.sources.delete(source);
      out = { kind: 'ok' };
    } else {
      // No token at all is a visitor or a misconfigured client, not a guess: refused and recorded, never counted.
      if (given !== undefined) this.fail(source, s, t);
      out = { kind: 'wrong' };
    }
    if (where.audit !== false)
      this.record?.({
        surface: where.surface,
        route: where.route,
        source,
        outcome: out.kind,
        at: new Date(t).toISOString(),
      });
    return out;
  }

  /** Whether `address` is backing off now, and for how long (for answers that carry no token, such as `GET /mcp`). */
  waiting(address: string | undefined): number | undefined {
    const t = this.now();
    const s = this.live(sourceKey(address), t);
    return s && s.blockedUntil > t ? Math.ceil((s.blockedUntil - t) / 1000) : undefined;
  }

  private live(source: string, t: number): SourceState | undefined {
    const s = this.sources.get(source);
    if (s && s.blockedUntil <= t && t - s.last > this.windowMs) {
      this.sources.delete(source);
      return undefined;
    }
    return s;
  }

  private fail(source: string, existing: SourceState | undefined, t: number): void {
    const s = existing ?? { failures: 0, last: t, blockedUntil: 0 };
    s.failures += 1;
    s.last = t;
    if (s.failures > this.free)
      s.blockedUntil = t + Math.min(this.maxMs, this.baseMs * 2 ** Math.min(30, s.failures - this.free - 1));
    // Re-inserted so the map's order is least recently failed first: that one is forgotten when the map is full.
    this.sources.delete(source);
    this.sources.set(source, s);
    if (this.sources.size > this.maxSources) {
      const oldest = this.sources.keys().next().value;
      if (oldest !== undefined) this.sources.delete(oldest);
    }
  }
}
