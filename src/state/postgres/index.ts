// The PostgreSQL adapter: N instances of `serve` on one database. Each instance keeps a copy of the perimeters,
// refreshed on NOTIFY (within milliseconds) and checked on every heartbeat (notices are not replayed after a
// reconnect); an instance whose heartbeat has not reached the store for `staleMs` reports itself silent, and agent
// calls are refused until it is heard again.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { fail, ok, type ProposalBounds, type Result } from '../../core/index.js';
import type { InstanceInfo, QuotaSighting, SharedState, StoreHealth } from '../types.js';
import { postgresAgentUse } from './agent-use.js';
import { postgresBranchLock } from './branch-lock.js';
import { postgresCounters } from './counters.js';
import { postgresWebSessions } from './web-sessions.js';
import { postgresPresence } from './presence.js';
import { postgresAuditCopy } from './audit.js';
import { describeStore } from './describe.js';
import { migrate } from './migrations.js';
import { withClient } from './client.js';
import { CHANNEL, openPostgresPerimeters } from './perimeters.js';
import { postgresProposals } from './proposals.js';

export interface PostgresOptions {
  /** A postgres:// URL; it may carry a password, so it is never logged or echoed. */
  readonly url: string;
  readonly instance: { readonly id: string; readonly version: string };
  /** Longest silence before agent calls are refused (default 10 s). */
  readonly staleMs?: number;
  /** Heartbeat and revision check period (default 1 s, which bounds how late a lost notice is noticed). */
  readonly beatMs?: number;
  /** Operator-facing notices (reconnects, failures); never given the URL. */
  readonly log: (level: 'info' | 'warn' | 'error', msg: string, fields?: Record<string, unknown>) => void;
  /** The proposal store's bounds per perimeter; default `DEFAULT_PROPOSAL_BOUNDS` (the contract suite shrinks them). */
  readonly proposalBounds?: ProposalBounds;
}

export type OpenError = 'unreachable' | 'corrupt_state' | 'schema';

export { describeStore } from './describe.js';
export { openAuditCopyReader } from './audit.js';

/** Connects, migrates, loads the perimeters and starts the heartbeat and the listener. */
export async function openPostgresState(o: PostgresOptions): Promise<Result<SharedState, OpenError>> {
  const staleMs = o.staleMs ?? 10_000;
  const beatMs = o.beatMs ?? 1_000;
  const where = describeStore(o.url);
  const pool = new pg.Pool({
    connectionString: o.url,
    max: 10,
    connectionTimeoutMillis: Math.min(5_000, staleMs),
    idleTimeoutMillis: 30_000,
    query_timeout: staleMs,
  });
  // An idle client dying (the server restarted) is reported here; without a listener it would end the process.
  pool.on('error', (e) => o.log('warn', 'state store connection lost', { store: where, error: e.message }));
  let closed = false;
  const fault = async <C extends OpenError>(code: C, message: string) => {
    closed = true;
    await pool.end().catch(() => undefined);
    return fail(code, message);
  };

  let migrated: Awaited<ReturnType<typeof migrate>>;
  try {
    migrated = await withClient(pool, migrate);
  } catch (e) {
    return await fault('unreachable', `Cannot open the state store at ${where} (${(e as Error).message}).`);
  }
  // After the client went back: ending the pool waits for every checked-out client.
  if (!migrated.ok) return await fault('schema', migrated.message);
  const opened = await openPostgresPerimeters(pool, o.log).catch((e: Error) =>
    fail('unreachable' as const, `Cannot read the state store at ${where} (${e.message}).`),
  );
  if (!opened.ok) return await fault(opened.code, opened.message);
  const perimeters = opened.value;

  let lastHeard = Date.now();
  let pending: QuotaSighting | undefined;
  let shared: QuotaSighting | undefined;
  const startedAt = new Date().toISOString();

  /** One round trip that proves the store answers: heartbeat, quota exchange, revision check. */
  const beat = async () => {
    await pool.query(
      `INSERT INTO gb_instances (id, version, started_at, last_seen) VALUES ($1, $2, $3, now())
       ON CONFLICT (id) DO UPDATE SET last_seen = now(), version = excluded.version`,
      [o.instance.id, o.instance.version, startedAt],
    );
    if (pending) {
      const q = pending;
      pending = undefined;
      await pool.query(
        `INSERT INTO gb_quota AS g (one, remaining, quota, reset_at, seen_at) VALUES (true, $1, $2, $3, now())
         ON CONFLICT (one) DO UPDATE SET remaining = excluded.remaining, quota = excluded.quota, reset_at = excluded.reset_at, seen_at = now()`,
        [q.remaining, q.limit, q.resetAt],
      );
    }
    const q = await pool.query<{ remaining: number; quota: number; reset_at: string }>(
      'SELECT remaining, quota, reset_at FROM gb_quota',
    );
    const row = q.rows[0];
    // What this instance saw since the beat began is newer than the row read back.
    if (!pending) shared = row ? { remaining: row.remaining, limit: row.quota, resetAt: row.reset_at } : undefined;
    const r = await perimeters.refresh();
    // A corrupt row is not "heard": the copy stays as it was and the silence bound runs out.
    if (!r.ok) throw new Error(r.message);
    lastHeard = Date.now();
  };

  // The listener: a dedicated connection (LISTEN is per session). Lost → reconnect, then reload everything, since
  // whatever was announced meanwhile is gone.
  let listener: pg.Client | undefined;
  const listen = async (): Promise<void> => {
    if (closed) return;
    const c = new pg.Client({ connectionString: o.url, connectionTimeoutMillis: Math.min(5_000, staleMs) });
    c.on('error', () => undefined);
    c.on('notification', () => {
      perimeters.refresh().then(
        (r) => {
          if (r.ok) lastHeard = Date.now();
        },
        () => undefined,
      );
    });
    c.on('end', () => {
      if (listener === c) listener = undefined;
      if (!closed) setTimeout(() => void listen(), beatMs).unref();
    });
    try {
      await c.connect();
      await c.query(`LISTEN ${CHANNEL}`);
      listener = c;
      const r = await perimeters.refresh(true);
      if (r.ok) lastHeard = Date.now();
    } catch (e) {
      o.log('warn', 'state store listener cannot connect; retrying', { store: where, error: (e as Error).message });
      await c.end().catch(() => undefined);
    }
  };
  await listen();

  let wasSilent = false;
  let beating = false;
  const timer = setInterval(() => {
    // A beat stuck on a dead connection must not pile up more behind it; its timeout ends it.
    if (beating) return;
    beating = true;
    beat()
      .finally(() => (beating = false))
      .then(
        () => {
          if (wasSilent) o.log('info', 'state store answers again', { store: where });
          wasSilent = false;
        },
        (e: Error) => {
          if (!wasSilent) o.log('warn', 'state store heartbeat failed', { store: where, error: e.message });
          wasSilent = true;
        },
      );
  }, beatMs);
  timer.unref();
  await beat().catch(() => undefined);

  const branches = postgresBranchLock({ url: o.url, instance: o.instance.id, log: o.log });

  const health = (): StoreHealth => {
    const silentMs = Date.now() - lastHeard;
    return silentMs > staleMs ? { kind: 'silent', silentMs } : { kind: 'live' };
  };

  return ok({
    kind: 'postgres',
    perimeters,
    proposals: postgresProposals(pool, o.proposalBounds, { instance: o.instance.id, staleMs }),
    counters: postgresCounters(pool),
    webSessions: postgresWebSessions(pool),
    agentUse: postgresAgentUse(pool, (error) =>
      o.log('warn', 'state store: an agent key use was not recorded', { store: where, error }),
    ),
    presence: postgresPresence(pool),
    audit: postgresAuditCopy(pool),
    health,
    async instances(): Promise<readonly InstanceInfo[]> {
      const r = await pool.query<{ id: string; version: string; started_at: Date; last_seen: Date }>(
        `SELECT id, version, started_at, last_seen FROM gb_instances
         WHERE stopped_at IS NULL AND last_seen > now() - make_interval(secs => $1) ORDER BY id`,
        [staleMs / 1000],
      );
      return r.rows.map((x) => ({
        id: x.id,
        version: x.version,
        startedAt: x.started_at.toISOString(),
        lastSeen: x.last_seen.toISOString(),
      }));
    },
    async sharedKey(name) {
      // The first instance's random bytes win; every later one reads them back.
      await pool.query('INSERT INTO gb_keys (name, bytes) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING', [
        name,
        randomBytes(32),
      ]);
      const r = await pool.query<{ bytes: Buffer }>('SELECT bytes FROM gb_keys WHERE name = $1', [name]);
      const k = r.rows[0]?.bytes;
      if (!k || k.length !== 32) throw new Error(`shared key ${name} is missing or damaged in the store`);
      return new Uint8Array(k);
    },
    sawQuota(q) {
      pending = q;
      shared = q;
    },
    quota: () => shared,
    branchLock: branches.lock,
    async close() {
      if (closed) return;
      closed = true;
      clearInterval(timer);
      await listener?.end().catch(() => undefined);
      await branches.close();
      // Kept, marked stopped: an apply this process had in flight is settled by others only after the silence bound.
      // Rows stopped or silent for a day go (an applier gone that long is settled whether its row is there or not).
      await pool
        .query('UPDATE gb_instances SET stopped_at = now() WHERE id = $1', [o.instance.id])
        .catch(() => undefined);
      await pool
        .query(`DELETE FROM gb_instances WHERE coalesce(stopped_at, last_seen) < now() - interval '1 day'`)
        .catch(() => undefined);
      await pool.end().catch(() => undefined);
    },
  });
}
