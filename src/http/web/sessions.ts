import { createHmac, randomBytes } from 'node:crypto';
import { sameSecret } from '../auth.js';

/** One signed-in operator in a browser. The id lives only in an HttpOnly cookie; the CSRF token only in our forms. */
export interface WebSession {
  readonly id: string;
  readonly csrf: string;
  readonly created: number;
  lastSeen: number;
}

export interface WebSessionOptions {
  /** A session unused this long is gone (default 30 minutes). */
  readonly idleMs?: number;
  /** A session older than this is gone however busy (default 12 hours). */
  readonly maxAgeMs?: number;
  /** Signed-in browsers at once; the least recently used one is signed out to make room (default 32). */
  readonly max?: number;
  readonly now?: () => number;
}

const token = () => randomBytes(32).toString('base64url');

/**
 * Server-side operator sessions for the web page. Ids are random and never derived from the ops token, so a stolen
 * cookie ends with sign-out or expiry; sign-in always mints a new id (no fixation).
 */
export class WebSessions {
  private readonly byId = new Map<string, WebSession>();
  private readonly idleMs: number;
  private readonly maxAgeMs: number;
  private readonly max: number;
  private readonly now: () => number;
  // Keys the sign-in form's CSRF token to a pre-session cookie without storing anything for anonymous visitors.
  private readonly preKey = randomBytes(32);

  constructor(o: WebSessionOptions = {}) {
    this.idleMs = o.idleMs ?? 30 * 60_000;
    this.maxAgeMs = o.maxAgeMs ?? 12 * 3_600_000;
    this.max = o.max ?? 32;
    this.now = o.now ?? Date.now;
  }

  /** Starts a session (after the ops token was checked). */
  create(): WebSession {
    this.sweep();
    while (this.byId.size >= this.max) {
      const oldest = [...this.byId.values()].sort((a, b) => a.lastSeen - b.lastSeen)[0];
      if (!oldest) break;
      this.byId.delete(oldest.id);
    }
    const t = this.now();
    const s: WebSession = { id: token(), csrf: token(), created: t, lastSeen: t };
    this.byId.set(s.id, s);
    return s;
  }

  /** The live session of a cookie value, touched; undefined when unknown or expired. */
  get(id: string | undefined): WebSession | undefined {
    if (id === undefined) return undefined;
    const s = this.byId.get(id);
    if (!s) return undefined;
    const t = this.now();
    if (t - s.lastSeen > this.idleMs || t - s.created > this.maxAgeMs) {
      this.byId.delete(id);
      return undefined;
    }
    s.lastSeen = t;
    return s;
  }

  /** Signs a session out. */
  destroy(id: string): void {
    this.byId.delete(id);
  }

  /** Signed-in browsers now. */
  get size(): number {
    this.sweep();
    return this.byId.size;
  }

  /** Seconds a session cookie should live in the browser (the absolute limit; the idle limit is enforced here). */
  get cookieMaxAgeSeconds(): number {
    return Math.floor(this.maxAgeMs / 1000);
  }

  /** A fresh value for the pre-session cookie that the sign-in form's CSRF token is bound to. */
  newPreSession(): string {
    return token();
  }

  /** The sign-in form's CSRF token for a pre-session cookie value. */
  signInToken(pre: string): string {
    return createHmac('sha256', this.preKey).update(pre).digest('base64url');
  }

  /** Whether a sign-in form's token belongs to this pre-session cookie (constant time). */
  signInTokenMatches(pre: string | undefined, given: string | undefined): boolean {
    if (pre === undefined || given === undefined) return false;
    return sameSecret(given, this.signInToken(pre));
  }

  private sweep(): void {
    const t = this.now();
    for (const s of this.byId.values())
      if (t - s.lastSeen > this.idleMs || t - s.created > this.maxAgeMs) this.byId.delete(s.id);
  }
}
