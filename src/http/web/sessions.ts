import { createHash, createHmac, randomBytes } from 'node:crypto';
import type { WebSessionLimits, WebSessionStore } from '../../state/types.js';
import { sameSecret } from '../auth.js';

/** One signed-in operator in a browser. The id lives only in an HttpOnly cookie; the CSRF token only in our forms. */
export interface WebSession {
  readonly id: string;
  readonly csrf: string;
}

export interface WebSessionOptions {
  /** A session unused this long is gone (default 30 minutes). */
  readonly idleMs?: number;
  /** A session older than this is gone however busy (default 12 hours). */
  readonly maxAgeMs?: number;
  /** Signed-in browsers at once; the least recently used one is signed out to make room (default 32). */
  readonly max?: number;
}

const token = () => randomBytes(32).toString('base64url');
const hashOf = (id: string) => createHash('sha256').update(id).digest('hex');

/**
 * Operator sessions for the web page, kept in the state store (every instance behind a balancer sees them) under the
 * hash of their id. Ids are random and never derived from the ops token, so a stolen cookie ends with sign-out or
 * expiry; sign-in always mints a new id (no fixation). The CSRF tokens (of a session, and of the sign-in form's
 * pre-session cookie) are keyed MACs under a key shared through the store, so any instance checks any form.
 */
export class WebSessions {
  private readonly limits: WebSessionLimits;
  private readonly store: WebSessionStore;
  private readonly key: () => Promise<Uint8Array>;

  /** `key`: 32 bytes shared by every instance (the state's `sharedKey`). */
  constructor(store: WebSessionStore, key: () => Promise<Uint8Array>, o: WebSessionOptions = {}) {
    this.store = store;
    this.key = key;
    this.limits = { idleMs: o.idleMs ?? 30 * 60_000, maxAgeMs: o.maxAgeMs ?? 12 * 3_600_000, max: o.max ?? 32 };
  }

  /** Starts a session (after the ops token was checked). */
  async create(): Promise<WebSession> {
    const id = token();
    await this.store.create(hashOf(id), this.limits);
    return { id, csrf: await this.mac('csrf', id) };
  }

  /** The live session of a cookie value, touched; undefined when unknown or expired. */
  async get(id: string | undefined): Promise<WebSession | undefined> {
    if (id === undefined) return undefined;
    if (!(await this.store.touch(hashOf(id), this.limits))) return undefined;
    return { id, csrf: await this.mac('csrf', id) };
  }

  /** Signs a session out. */
  destroy(id: string): Promise<void> {
    return this.store.destroy(hashOf(id));
  }

  /** Signed-in browsers now. */
  size(): Promise<number> {
    return this.store.count(this.limits);
  }

  /** Seconds a session cookie should live in the browser (the absolute limit; the idle limit is enforced here). */
  get cookieMaxAgeSeconds(): number {
    return Math.floor(this.limits.maxAgeMs / 1000);
  }

  /** A fresh value for the pre-session cookie that the sign-in form's CSRF token is bound to. */
  newPreSession(): string {
    return token();
  }

  /** The sign-in form's CSRF token for a pre-session cookie value. */
  signInToken(pre: string): Promise<string> {
    return this.mac('signin', pre);
  }

  /** Whether a sign-in form's token belongs to this pre-session cookie (constant time). */
  async signInTokenMatches(pre: string | undefined, given: string | undefined): Promise<boolean> {
    if (pre === undefined || given === undefined) return false;
    return sameSecret(given, await this.signInToken(pre));
  }

  /** A MAC per purpose, so a sign-in token is never a session's CSRF token or the other way round. */
  private async mac(purpose: 'csrf' | 'signin', value: string): Promise<string> {
    return createHmac('sha256', await this.key())
      .update(`${purpose}\0${value}`)
      .digest('base64url');
  }
}
