// The branch lock of several instances (issue 21 §4): a session-level advisory lock per repository branch, taken on a
// connection of its own. Session level because a write is many git processes, not one transaction; on its own
// connection so that whatever ends the process (a crash, SIGKILL, a host that goes away once TCP gives up) ends the
// session, and PostgreSQL itself releases the lock: a killed holder never blocks the others. Taken with
// `pg_try_advisory_lock` in a short poll, never the blocking form: one connection serves every key of this process,
// and a blocking wait on one key would queue the release of another behind it.
import { createHash } from 'node:crypto';
import pg from 'pg';
import type { BranchLock, Held } from '../../core/index.js';

// The first key of every branch lock; the second is the branch key's hash (a collision only serialises two branches),
// taken here because the key holds a NUL, which a PostgreSQL text value cannot.
// Any constant no other advisory lock on the database uses ("gbbl").
export const BRANCH_LOCK = 0x6762626c;

/** The second key of a branch's advisory lock (what an operator looks up in pg_locks.objid). */
export const branchLockId = (key: string): number => createHash('sha256').update(key).digest().readInt32BE(0);

export interface BranchLockOptions {
  readonly url: string;
  /** Shown as the connection's application_name, so an operator (or a test) sees in pg_locks who holds what. */
  readonly instance: string;
  /** Longest wait for a branch another instance holds before `busy` (default 30 s). */
  readonly waitMs?: number;
  readonly log: (level: 'info' | 'warn', msg: string, fields?: Record<string, unknown>) => void;
}

/** The lock, and its connection's end. */
export function postgresBranchLock(o: BranchLockOptions): { lock: BranchLock; close(): Promise<void> } {
  const waitMs = o.waitMs ?? 30_000;
  let client: pg.Client | undefined;
  let connecting: Promise<pg.Client> | undefined;
  let closed = false;
  const connection = (): Promise<pg.Client> => {
    if (client) return Promise.resolve(client);
    connecting ??= (async () => {
      const c = new pg.Client({ connectionString: o.url, application_name: `git-blinder ${o.instance}` });
      // A lost session has released every lock it held; the next use connects afresh.
      c.on('error', (e) => o.log('warn', 'branch lock connection lost', { error: e.message }));
      c.on('end', () => {
        if (client === c) client = undefined;
      });
      try {
        await c.connect();
        client = c;
        return c;
      } finally {
        connecting = undefined;
      }
    })();
    return connecting;
  };

  // In-process holders queue here first: PostgreSQL grants a session lock again to the session that holds it.
  const tails = new Map<string, Promise<unknown>>();
  const local = <T>(key: string, task: () => Promise<T>): Promise<T> => {
    const run = (tails.get(key) ?? Promise.resolve()).then(task, task);
    const tail = run.catch(() => undefined);
    tails.set(key, tail);
    void tail.then(() => {
      if (tails.get(key) === tail) tails.delete(key);
    });
    return run;
  };

  const lock: BranchLock = <T>(key: string, task: () => Promise<T>) =>
    local(key, async (): Promise<Held<T>> => {
      const t0 = Date.now();
      const id = branchLockId(key);
      let held: pg.Client;
      for (let pause = 10; ; pause = Math.min(pause * 2, 200)) {
        if (closed) return { kind: 'unavailable' };
        let c: pg.Client;
        let got: boolean;
        try {
          c = await connection();
          const r = await c.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1, $2) AS ok', [BRANCH_LOCK, id]);
          got = r.rows[0]?.ok === true;
        } catch {
          return { kind: 'unavailable' };
        }
        if (got) {
          held = c;
          break;
        }
        if (Date.now() - t0 >= waitMs) return { kind: 'busy', waitedMs: Date.now() - t0 };
        await new Promise((r) => setTimeout(r, pause + Math.random() * pause));
      }
      try {
        return { kind: 'held', value: await task() };
      } finally {
        // A session that died meanwhile released the lock with itself; there is nothing left to release.
        await held.query('SELECT pg_advisory_unlock($1, $2)', [BRANCH_LOCK, id]).catch(() => undefined);
      }
    });

  return {
    lock,
    async close() {
      closed = true;
      await client?.end().catch(() => undefined);
    },
  };
}
