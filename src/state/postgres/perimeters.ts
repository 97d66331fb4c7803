// The PostgreSQL perimeter store: rows of the shared database, mirrored in memory for per-call reads. Every change
// runs in one transaction that locks the revision row, so changes from all instances are serialized and each one
// bumps the revision other instances compare against (on NOTIFY, and on every heartbeat in case a notice was lost).
// The copy follows whatever the store holds, not the highest number seen: a database restored from a dump, or a
// replica that lagged and was promoted, holds a lower revision (or another epoch), and that is what every instance
// must then enforce, like a freshly started one would (issue 21).
import type { Pool, PoolClient } from 'pg';
import { describeIssues, fail, ok, Perimeter, type Result } from '../../core/index.js';
import type { PerimeterStore } from '../types.js';
import { withClient } from './client.js';

/** The channel every change is announced on; the payload is the new revision. */
export const CHANNEL = 'gb_state';

/** Which state of which store a copy holds: equal marks mean the same rows (see migration 7). */
interface Mark {
  readonly epoch: string;
  readonly rev: number;
  readonly stamp: string;
}

/** What a snapshot of the store holds: the perimeters at one revision. */
interface Snapshot extends Mark {
  readonly perimeters: Map<string, Perimeter>;
}

const sameMark = (a: Mark, b: Mark) => a.epoch === b.epoch && a.rev === b.rev && a.stamp === b.stamp;

/** The revision row as a mark. */
async function readMark(client: PoolClient, lock = false): Promise<Mark> {
  const r = await client.query<{ rev: string; epoch: string; stamp: string }>(
    `SELECT rev, epoch, stamp FROM gb_revision${lock ? ' FOR UPDATE' : ''}`,
  );
  const row = r.rows[0];
  return { rev: Number(row?.rev ?? 0), epoch: row?.epoch ?? '', stamp: row?.stamp ?? '' };
}

/** Where operator notices go (never given the store's URL). */
export type PerimeterLog = (level: 'info' | 'warn', msg: string, fields?: Record<string, unknown>) => void;

/**
 * A stored row: the perimeter without its origin and without its keys' agent ids, which have columns of their own
 * (migrations 4 and 10).
 */
interface Row {
  readonly id: string;
  readonly body: unknown;
  readonly origin: string | null;
  readonly agents: unknown;
}

/** The body's keys with their agent ids put back from the `agents` column (a key without one stands for `key-<id>`). */
function withAgents(body: Record<string, unknown>, agents: unknown): Record<string, unknown> {
  if (!Array.isArray(body['keys']) || agents === null || typeof agents !== 'object') return body;
  const names = agents as Record<string, unknown>;
  const keys = (body['keys'] as unknown[]).map((k) => {
    if (k === null || typeof k !== 'object') return k;
    const id = (k as Record<string, unknown>)['id'];
    const agent = typeof id === 'string' ? names[id] : undefined;
    return agent === undefined ? k : { ...k, agent };
  });
  return { ...body, keys };
}

/** A perimeter split into its row: `body` without origin and agent ids, the agent ids by key id. */
function toRow(p: Perimeter): { body: Record<string, unknown>; origin: string | null; agents: Record<string, string> } {
  const { origin, keys, ...rest } = p;
  const agents: Record<string, string> = {};
  for (const k of keys ?? []) if (k.agent !== undefined) agents[k.id] = k.agent;
  const body = keys === undefined ? rest : { ...rest, keys: keys.map(({ agent: _a, ...k }) => k) };
  return { body, origin: origin ?? null, agents };
}

/** Parses stored rows; a row that does not parse is an error, never skipped (skipping would drop a decision). */
function parseRows(rows: readonly Row[]): Result<Map<string, Perimeter>, 'corrupt_state'> {
  const out = new Map<string, Perimeter>();
  for (const row of rows) {
    const stored =
      typeof row.body !== 'object' || row.body === null
        ? row.body
        : withAgents(row.body as Record<string, unknown>, row.agents);
    const body =
      row.origin === null || typeof stored !== 'object' || stored === null
        ? stored
        : { ...(stored as Record<string, unknown>), origin: row.origin };
    const p = Perimeter.safeParse(body);
    if (!p.success || p.data.id !== row.id) {
      return fail(
        'corrupt_state',
        `Perimeter row "${row.id}" in the store is invalid (${p.success ? 'id mismatch' : describeIssues(p.error)}).`,
      );
    }
    out.set(row.id, p.data);
  }
  return ok(out);
}

/** Reads the revision and every perimeter in one snapshot (a repeatable-read transaction). */
async function readSnapshot(client: PoolClient, lock: boolean): Promise<Result<Snapshot, 'corrupt_state'>> {
  const mark = await readMark(client, lock);
  const rows = await client.query<Row>('SELECT id, body, origin, agents FROM gb_perimeters');
  const parsed = parseRows(rows.rows);
  if (!parsed.ok) return parsed;
  return ok({ ...mark, perimeters: parsed.value });
}

/** The store plus what the adapter's loop drives: reloading when the revision moved. */
export interface PostgresPerimeters extends PerimeterStore {
  /**
   * Reloads when the store's mark (epoch, revision, stamp) differs from the copy's, lower as well as higher;
   * `force` reloads anyway (after a reconnect).
   */
  refresh(force?: boolean): Promise<Result<boolean, 'corrupt_state'>>;
}

/** Opens the store over `pool` and loads the first copy. */
export async function openPostgresPerimeters(
  pool: Pool,
  log: PerimeterLog = () => undefined,
): Promise<Result<PostgresPerimeters, 'corrupt_state'>> {
  let copy: Snapshot = { epoch: '', rev: -1, stamp: '', perimeters: new Map() };
  let localRev = 0;
  const take = (next: Snapshot) => {
    copy = next;
    localRev += 1;
  };
  /**
   * Makes a reload's snapshot the copy when it differs. A snapshot read while another reload or a change of this
   * instance was adopted may be older than that one: a lower revision of the same epoch is then dropped (the next
   * heartbeat reads again). With nothing adopted meanwhile, a lower revision or another epoch is the store going
   * back (a restore, a failover to a lagging replica): adopted whole, and said.
   */
  const adopt = (next: Snapshot, since: number): boolean => {
    if (sameMark(next, copy)) return false;
    const back = next.epoch !== copy.epoch || next.rev < copy.rev;
    if (back && localRev !== since && next.epoch === copy.epoch) return false;
    if (back && copy.rev >= 0)
      log('warn', 'the state store went back (restored or failed over): perimeters reloaded in full from it', {
        from_revision: copy.rev,
        to_revision: next.rev,
        epoch_changed: next.epoch !== copy.epoch,
      });
    take(next);
    return true;
  };

  const refresh = async (force = false): Promise<Result<boolean, 'corrupt_state'>> => {
    const since = localRev;
    return withClient(pool, async (client) => {
      if (!force && sameMark(await readMark(client), copy)) return ok(false);
      await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      try {
        const snap = await readSnapshot(client, false);
        await client.query('COMMIT');
        if (!snap.ok) return snap;
        return ok(adopt(snap.value, since));
      } catch (e) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw e;
      }
    });
  };

  const modify = async <T, C extends string>(
    mutate: (draft: Map<string, Perimeter>) => Result<T, C>,
  ): Promise<Result<T, C>> => {
    const since = localRev;
    return withClient(pool, async (client) => {
      await client.query('BEGIN');
      try {
        const snap = await readSnapshot(client, true);
        // A corrupt row is a broken invariant here: refusing the change is right, widening around it is not.
        if (!snap.ok) throw new Error(snap.message);
        const current = snap.value.perimeters;
        const next = new Map(current);
        const result = mutate(next);
        if (!result.ok) {
          await client.query('ROLLBACK');
          return result;
        }
        for (const id of current.keys())
          if (!next.has(id)) await client.query('DELETE FROM gb_perimeters WHERE id = $1', [id]);
        for (const [id, p] of next) {
          if (JSON.stringify(current.get(id)) === JSON.stringify(p)) continue;
          // A row every instance fails to read would stop them all: a perimeter that would not parse back is a bug here.
          const check = Perimeter.safeParse(p);
          if (!check.success || check.data.id !== id) throw new Error(`refusing to store an invalid perimeter "${id}"`);
          const row = toRow(p);
          await client.query(
            'INSERT INTO gb_perimeters (id, body, origin, agents) VALUES ($1, $2, $3, $4) ON CONFLICT (id) DO UPDATE SET body = excluded.body, origin = excluded.origin, agents = excluded.agents',
            [id, JSON.stringify(row.body), row.origin, JSON.stringify(row.agents)],
          );
        }
        const bumped = await client.query<{ rev: string; epoch: string; stamp: string }>(
          `UPDATE gb_revision SET rev = rev + 1, stamp = md5(random()::text || clock_timestamp()::text)
           RETURNING rev, epoch, stamp`,
        );
        const row = bumped.rows[0];
        const rev = Number(row?.rev ?? 0);
        await client.query('SELECT pg_notify($1, $2)', [CHANNEL, String(rev)]);
        await client.query('COMMIT');
        // Adopted whatever its number: it was written on top of what the store holds now, so it is the store's state
        // (after a restore it may well be lower than the copy's). Only a newer state of the same store adopted while
        // this change committed (another change of this instance, or its notice) is kept instead.
        const mine: Snapshot = { epoch: row?.epoch ?? '', rev, stamp: row?.stamp ?? '', perimeters: next };
        if (localRev === since || mine.epoch !== copy.epoch || mine.rev > copy.rev) take(mine);
        return result;
      } catch (e) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw e;
      }
    });
  };

  const first = await refresh(true);
  if (!first.ok) return first;
  return ok({
    file: undefined,
    list: () => [...copy.perimeters.values()].sort((a, b) => a.id.localeCompare(b.id)),
    get: (id) => copy.perimeters.get(id),
    revision: () => localRev,
    put: async (p) => {
      await modify((draft) => ok(void draft.set(p.id, p)));
    },
    delete: async (id) => (await modify((draft) => (draft.delete(id) ? ok(true) : fail('absent', '')))).ok,
    modify,
    refresh,
  });
}
