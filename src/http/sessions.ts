import type { NodeStreamableHTTPServerTransport } from '@modelcontextprotocol/node';
import type { McpServer } from '@modelcontextprotocol/server';

/** One 2025-era MCP session: its own server and transport, tied to the endpoint it was created on. */
export interface Session {
  readonly id: string;
  readonly key: string;
  /** Perimeter id, for status counts ('root' for the operator surface). */
  readonly perimeter: string;
  readonly transport: NodeStreamableHTTPServerTransport;
  readonly server: McpServer;
  lastSeen: number;
  openStreams: number;
}

export interface SessionTableOptions {
  readonly idleMs: number;
  readonly max: number;
  readonly now?: () => number;
}

/**
 * The live sessions. The SDK neither expires sessions nor stops a session id from being replayed on another URL,
 * and most clients never send DELETE: this table does all three jobs.
 */
export class SessionTable {
  private readonly sessions = new Map<string, Session>();
  private readonly timer: NodeJS.Timeout;
  private readonly opts: SessionTableOptions;

  constructor(opts: SessionTableOptions) {
    this.opts = opts;
    this.timer = setInterval(() => void this.reap(), Math.max(1_000, Math.min(opts.idleMs, 60_000)));
    this.timer.unref();
  }

  private now(): number {
    return (this.opts.now ?? Date.now)();
  }

  /** True when another session may be opened. */
  hasRoom(): boolean {
    return this.sessions.size < this.opts.max;
  }

  add(s: Omit<Session, 'lastSeen' | 'openStreams'>): void {
    this.sessions.set(s.id, { ...s, lastSeen: this.now(), openStreams: 0 });
  }

  /** The session with this id if it was created on this endpoint; otherwise undefined (answered as unknown). */
  lookup(id: string, key: string): Session | undefined {
    const s = this.sessions.get(id);
    if (!s || s.key !== key) return undefined;
    s.lastSeen = this.now();
    return s;
  }

  forget(id: string): void {
    this.sessions.delete(id);
  }

  /** Closes sessions idle for longer than the limit with no open stream. */
  async reap(): Promise<number> {
    const cutoff = this.now() - this.opts.idleMs;
    const idle = [...this.sessions.values()].filter((s) => s.openStreams === 0 && s.lastSeen < cutoff);
    await Promise.all(idle.map((s) => this.close(s)));
    return idle.length;
  }

  private async close(s: Session): Promise<void> {
    this.sessions.delete(s.id);
    await s.transport.close().catch(() => undefined);
    await s.server.close().catch(() => undefined);
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
    for (const s of this.sessions.values()) if (s.openStreams === 0 && s.lastSeen < cutoff) idle++;
    return { active: this.sessions.size - idle, idle };
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
