import type { NodeStreamableHTTPServerTransport } from '@modelcontextprotocol/node';
import type { Server } from '@modelcontextprotocol/server';

/** One 2025-era MCP session: its own server and transport, tied to the endpoint it was created on. */
export interface Session {
  readonly id: string;
  readonly key: string;
  /** Perimeter id, for status counts ('root' for the operator surface). */
  readonly perimeter: string;
  /** Who opened it: 'root' for the ops token, else one agent key (or the perimeter itself when perimeters are open). */
  readonly owner: string;
  /** The agent id of the key that opened it (absent on the operator surface); every call of the session acts for it. */
  readonly agent?: string;
  /** The branch its binding was on when it opened (agent sessions). */
  readonly branch?: string;
  readonly transport: NodeStreamableHTTPServerTransport;
  readonly server: Server;
  /** When `initialize` arrived: a session still in its handshake is never evicted during its grace (see `claim`). */
  readonly opened: number;
  lastSeen: number;
  openStreams: number;
  /** Requests (not GET streams) still being answered: a session with one is never idle, whatever `lastSeen` says. */
  answering: number;
  /** Requests seen after initialize: a session that made none or one is the first an eviction closes. */
  requests: number;
}

/** One agent's open sessions on one perimeter (see `SessionTable.agents`). */
export interface AgentSessions {
  readonly perimeter: string;
  readonly agent: string;
  readonly sessions: number;
  readonly branches: readonly string[];
  readonly lastSeen: number;
}

/** How many sessions may be open at once, in each room. */
export interface SessionLimits {
  /** Agent sessions in the whole process. */
  readonly max: number;
  /** Agent sessions of one perimeter (all its keys and branches together). */
  readonly perPerimeter: number;
  /** Sessions of one agent key; at this cap one of the key's own sessions (abandoned ones first) is closed to make room. */
  readonly perKey: number;
  /** Operator sessions on /mcp/root: a room of their own, so agents can never fill it. */
  readonly root: number;
}

export const DEFAULT_SESSION_LIMITS: SessionLimits = { max: 1_000, perPerimeter: 200, perKey: 32, root: 16 };

export interface SessionTableOptions {
  readonly idleMs: number;
  readonly limits?: Partial<SessionLimits>;
  /** False once an owner's credential is gone (a revoked key, a deleted perimeter): its sessions stop taking room. */
  readonly ownerLive?: (owner: string) => boolean;
  readonly now?: () => number;
  /**
   * How long a session that has made no request since `initialize` counts as still being initialized (default
   * 30 s): during it no other session's `initialize` may evict it, so a burst of new sessions cannot evict each other.
   */
  readonly handshakeGraceMs?: number;
}

export const DEFAULT_HANDSHAKE_GRACE_MS = 30_000;

/** The answer to "may this owner open one more session": yes, or the room that is full. */
export type Claim = { kind: 'room' } | { kind: 'full'; room: 'key' | 'perimeter' | 'server'; retryAfterS: number };

/** Seconds a full perimeter or server asks the client to wait: its room frees only as sessions end or go idle. */
const FULL_ROOM_RETRY_S = 5;

/**
 * The live sessions. The SDK neither expires sessions nor stops a session id from being replayed on another URL,
 * and most clients never send DELETE: this table does all three jobs, and keeps one key from taking every slot.
 * An open GET stream does not keep a session alive: only requests do, so a held stream is reaped like any idle session.
 * A request still being answered does: closing its transport would drop the answer, and the client would wait forever.
 */
export class SessionTable {
  private readonly sessions = new Map<string, Session>();
  private readonly timer: NodeJS.Timeout;
  private readonly opts: SessionTableOptions;
  readonly limits: SessionLimits;
  private evicted = 0;

  constructor(opts: SessionTableOptions) {
    this.opts = opts;
    this.limits = { ...DEFAULT_SESSION_LIMITS, ...opts.limits };
    this.timer = setInterval(() => void this.reap(), Math.max(1_000, Math.min(opts.idleMs, 60_000)));
    this.timer.unref();
  }

  private now(): number {
    return (this.opts.now ?? Date.now)();
  }

  private graceMs(): number {
    return this.opts.handshakeGraceMs ?? DEFAULT_HANDSHAKE_GRACE_MS;
  }

  /** Still in its handshake: no request since `initialize` (which may itself be unanswered), within the grace. */
  private initializing(s: Session, now: number): boolean {
    return s.requests === 0 && now - s.opened < this.graceMs();
  }

  /**
   * The owner's session an eviction closes: the least recently used of those that made at most one request after
   * initialize (opened and abandoned, as a flood's are), else its least recently used one. Never one in the middle of
   * a call (closing it loses the answer, see `answer`) nor one still being initialized (a burst of new sessions would
   * close each other and every client would get "Session not found"); undefined when every session is one of those.
   */
  private victimOf(owner: string): Session | undefined {
    const now = this.now();
    let light: Session | undefined;
    let oldest: Session | undefined;
    for (const s of this.sessions.values()) {
      if (s.owner !== owner || s.answering > 0 || this.initializing(s, now)) continue;
      if (!oldest || s.lastSeen < oldest.lastSeen) oldest = s;
      if (s.requests <= 1 && (!light || s.lastSeen < light.lastSeen)) light = s;
    }
    return light ?? oldest;
  }

  /** Whole seconds until the owner's first session leaves its handshake grace (when a retry can find a victim). */
  private retryAfterFor(owner: string): number {
    const now = this.now();
    let soonest = this.graceMs();
    for (const s of this.sessions.values()) {
      if (s.owner === owner && this.initializing(s, now)) soonest = Math.min(soonest, s.opened + this.graceMs() - now);
    }
    return Math.max(1, Math.ceil(soonest / 1_000));
  }

  /**
   * Claims a slot for one more session of `owner` on `perimeter`, synchronously (call `add` right after, before any
   * await, so concurrent initializes cannot overshoot). An owner at its own cap loses one of its own sessions (see
   * victimOf): a key that opens sessions without end only ever competes with itself. When every one of its sessions
   * is mid-call or still being initialized there is nothing to close: the answer is a full 'key' room.
   */
  claim(owner: string, perimeter: string): Claim {
    // A revoked key's sessions already answer 404 at their next request; here they also give their room back. One
    // pass over the table counts the three rooms too: an initialize at a thousand open sessions allocates no copy of
    // the table (close() removes its entry before it awaits, which a Map iteration tolerates).
    const live = this.opts.ownerLive;
    let mine = 0;
    let inPerimeter = 0;
    let agents = 0;
    for (const s of this.sessions.values()) {
      if (live && !live(s.owner)) {
        void this.close(s);
        continue;
      }
      if (s.owner === owner) mine += 1;
      if (s.owner === 'root') continue;
      agents += 1;
      if (s.perimeter === perimeter) inPerimeter += 1;
    }
    const isRoot = owner === 'root';
    const ownCap = isRoot ? this.limits.root : this.limits.perKey;
    if (mine >= ownCap) {
      const victim = this.victimOf(owner);
      if (!victim) return { kind: 'full', room: 'key', retryAfterS: this.retryAfterFor(owner) };
      this.evict(victim);
      return { kind: 'room' };
    }
    if (isRoot) return { kind: 'room' };
    if (inPerimeter >= this.limits.perPerimeter)
      return { kind: 'full', room: 'perimeter', retryAfterS: FULL_ROOM_RETRY_S };
    if (agents >= this.limits.max) return { kind: 'full', room: 'server', retryAfterS: FULL_ROOM_RETRY_S };
    return { kind: 'room' };
  }

  private evict(s: Session): void {
    this.evicted += 1;
    void this.close(s);
  }

  /** Records a session (after `claim`). */
  add(s: Omit<Session, 'opened' | 'lastSeen' | 'openStreams' | 'requests' | 'answering'>): void {
    const now = this.now();
    this.sessions.set(s.id, { ...s, opened: now, lastSeen: now, openStreams: 0, requests: 0, answering: 0 });
  }

  /**
   * Marks one request of `s` as being answered until the returned function is called (when its response closes). The
   * idle clock then restarts from the answer, not the question: a write that outlasts the idle limit still gets out.
   */
  answer(s: Session): () => void {
    s.answering += 1;
    let done = false;
    return () => {
      if (done) return;
      done = true;
      s.answering -= 1;
      s.lastSeen = this.now();
    };
  }

  /**
   * The session with this id if it was created on this endpoint by this owner; otherwise undefined (answered as
   * unknown): a session id replayed on another URL or under another agent's key finds nothing.
   */
  lookup(id: string, key: string, owner: string): Session | undefined {
    const s = this.sessions.get(id);
    if (!s || s.key !== key || s.owner !== owner) return undefined;
    s.lastSeen = this.now();
    s.requests += 1;
    return s;
  }

  forget(id: string): void {
    this.sessions.delete(id);
  }

  /** Closes and forgets one session (an initialize that never completed). */
  async drop(id: string): Promise<void> {
    const s = this.sessions.get(id);
    if (s) await this.close(s);
  }

  /** Closes sessions with nothing being answered and no request for longer than the idle limit, open GET stream or not. */
  async reap(): Promise<number> {
    const cutoff = this.now() - this.opts.idleMs;
    const idle = [...this.sessions.values()].filter((s) => s.answering === 0 && s.lastSeen < cutoff);
    await Promise.all(idle.map((s) => this.close(s)));
    return idle.length;
  }

  private async close(s: Session): Promise<void> {
    this.sessions.delete(s.id);
    await s.transport.close().catch(() => undefined);
    await s.server.close().catch(() => undefined);
  }

  /**
   * Open agent sessions, one row per perimeter and agent, with the branches they are on and when the agent was last
   * seen (ms): what `status` lists and what presence is built from.
   */
  agents(): AgentSessions[] {
    const rows = new Map<
      string,
      { perimeter: string; agent: string; sessions: number; branches: Set<string>; lastSeen: number }
    >();
    for (const s of this.sessions.values()) {
      if (s.agent === undefined) continue;
      const k = `${s.perimeter}\u0000${s.agent}`;
      const row = rows.get(k) ?? {
        perimeter: s.perimeter,
        agent: s.agent,
        sessions: 0,
        branches: new Set(),
        lastSeen: 0,
      };
      row.sessions += 1;
      if (s.branch !== undefined) row.branches.add(s.branch);
      row.lastSeen = Math.max(row.lastSeen, s.lastSeen);
      rows.set(k, row);
    }
    return [...rows.values()]
      .map((r) => ({ ...r, branches: [...r.branches].sort() }))
      .sort((a, b) => a.perimeter.localeCompare(b.perimeter) || a.agent.localeCompare(b.agent));
  }

  /** Live session counts per perimeter id. */
  counts(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const s of this.sessions.values()) out[s.perimeter] = (out[s.perimeter] ?? 0) + 1;
    return out;
  }

  /** Sessions with a request in the last `quietMs` or an open stream (active), and the rest (idle, awaiting reaping). */
  activity(quietMs: number): { active: number; idle: number } {
    const cutoff = this.now() - quietMs;
    let idle = 0;
    for (const s of this.sessions.values()) if (s.openStreams === 0 && s.answering === 0 && s.lastSeen < cutoff) idle++;
    return { active: this.sessions.size - idle, idle };
  }

  /** Open GET streams and sessions closed to make room, for the operator status. */
  stats(): { streams: number; evicted: number; limits: SessionLimits } {
    let streams = 0;
    for (const s of this.sessions.values()) streams += s.openStreams;
    return { streams, evicted: this.evicted, limits: this.limits };
  }

  get size(): number {
    return this.sessions.size;
  }

  /** Closes every session (shutdown). */
  async closeAll(): Promise<void> {
    clearInterval(this.timer);
    await Promise.all([...this.sessions.values()].map((s) => this.close(s)));
  }
}
