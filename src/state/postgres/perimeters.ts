// The PostgreSQL perimeter store: rows of the shared database, mirrored in memory for per-call reads. Every change
// runs in one transaction that locks the revision row, so changes from all instances are serialized and each one
// bumps the revision other instances compare against (on NOTIFY, and on every heartbeat in case a notice was lost).
import type { Pool, PoolClient } from 'pg';
import { describeIssues, fail, ok, Perimeter, type Result } from '../../core/index.js';
import type { PerimeterStore } from '../types.js';
import { withClient } from './client.js';

/** The channel every change is announced on; the payload is the new revision. */
export const CHANNEL = 'gb_state';

/** What a snapshot of the store holds: the perimeters at one revision. */
interface Snapshot {
  readonly rev: number;
  readonly perimeters: Map<string, Perimeter>;
}

/**
 * A stored row: the perimeter without its origin and without its keys' agent ids, which have columns of their own
 * (migrations 4 and 7).
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
  const rev = await client.query<{ rev: string }>(`SELECT rev FROM gb_revision${lock ? ' FOR UPDATE' : ''}`);
  const rows = await client.query<Row>('SELECT id, body, origin, agents FROM gb_perimeters');
  const parsed = parseRows(rows.rows);
  if (!parsed.ok) return parsed;
  return ok({ rev: Number(rev.rows[0]?.rev ?? 0), perimeters: parsed.value });
}

/** The store plus what the adapter's loop drives: reloading when the revision moved. */
export interface PostgresPerimeters extends PerimeterStore {
  /** Reloads when the store's revision differs from the copy's; `force` reloads anyway (after a reconnect). */
  refresh(force?: boolean): Promise<Result<boolean, 'corrupt_state'>>;
}

/** Opens the store over `pool` and loads the first copy. */
export async function openPostgresPerimeters(pool: Pool): Promise<Result<PostgresPerimeters, 'corrupt_state'>> {
  let copy: Snapshot = { rev: -1, perimeters: new Map() };
  let localRev = 0;
  /** Makes `next` the copy if it is newer than what is held: a slow reload never undoes a faster change. */
  const adopt = (next: Snapshot) => {
    if (next.rev <= copy.rev) return false;
    copy = next;
    localRev += 1;
    return true;
  };

  const refresh = async (force = false): Promise<Result<boolean, 'corrupt_state'>> => {
    return withClient(pool, async (client) => {
      if (!force) {
        const r = await client.query<{ rev: string }>('SELECT rev FROM gb_revision');
        if (Number(r.rows[0]?.rev ?? 0) === copy.rev) return ok(false);
      }
      await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      try {
        const snap = await readSnapshot(client, false);
        await client.query('COMMIT');
        if (!snap.ok) return snap;
        if (force && snap.value.rev === copy.rev) return ok(false);
        return ok(adopt(snap.value));
      } catch (e) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw e;
      }
    });
  };

  const modify = async <T, C extends string>(
    mutate: (draft: Map<string, Perimeter>) => Result<T, C>,
  ): Promise<Result<T, C>> => {
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
        const bumped = await client.query<{ rev: string }>('UPDATE gb_revision SET rev = rev + 1 RETURNING rev');
        const rev = Number(bumped.rows[0]?.rev ?? 0);
        await client.query('SELECT pg_notify($1, $2)', [CHANNEL, String(rev)]);
        await client.query('COMMIT');
        adopt({ rev, perimeters: next });
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
