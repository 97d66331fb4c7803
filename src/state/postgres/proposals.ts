// The PostgreSQL proposal store: one row per proposal, transitions under a row lock, so an approval on one instance
// and a cancel on another cannot both win. Reads go to the database every time (no copy to fall out of date). An
// insert holds its perimeter's bounds (`admitProposal`, core) under a per-perimeter advisory lock, so two instances
// admitting at once cannot both take the last room, and a perimeter's insert reads only that perimeter's rows.
import type { Pool, PoolClient } from 'pg';
import {
  admitProposal,
  DEFAULT_PROPOSAL_BOUNDS,
  fail,
  ok,
  Proposal,
  proposalBytes,
  sizeOf,
  type ProposalBounds,
  type ProposalStatus,
  type Result,
} from '../../core/index.js';
import type { InsertOutcome, ProposalStore, ProposalStoreError } from '../proposals.js';
import { withClient } from './client.js';

/** A stored body that no longer parses is a broken invariant: never skipped, never widened around. */
function parse(body: unknown): Proposal {
  const p = Proposal.safeParse(body);
  if (!p.success) throw new Error(`a stored proposal is invalid (${p.error.issues[0]?.message ?? 'schema'})`);
  return p.data;
}

const COLUMNS = '(id, perimeter, kind, idempotency_key, status, created_at, body, bytes, updated_at)';
const values = (p: Proposal) => [
  p.id,
  p.perimeter,
  p.change.kind,
  p.idempotency_key ?? null,
  p.status,
  p.created_at,
  JSON.stringify(p),
  proposalBytes(p),
  p.updated_at,
];

// The first key of the per-perimeter advisory lock; the second is the perimeter id's hash. Any constant that no other
// advisory lock on the database uses ("gbpr").
const PERIMETER_LOCK = 0x67627072;

/** Runs `body` in a transaction on one client; rolls back on a throw. */
async function inTransaction<T>(
  pool: Pool,
  body: (c: PoolClient) => Promise<{ commit: boolean; value: T }>,
): Promise<T> {
  return withClient(pool, async (c) => {
    await c.query('BEGIN');
    try {
      const { commit, value } = await body(c);
      await c.query(commit ? 'COMMIT' : 'ROLLBACK');
      return value;
    } catch (e) {
      await c.query('ROLLBACK').catch(() => undefined);
      throw e;
    }
  });
}

/**
 * Who runs this store: the instance recorded as the applier of what it approves, and the silence bound after which an
 * instance that stopped beating (or stopped) is gone.
 */
export interface ProposalOwner {
  readonly instance: string;
  readonly staleMs: number;
}

/**
 * The proposal store over `pool`.
 *
 * Only the owner settles its own transitions (issue 21 §2): every move to `approved` or `applying` records the
 * instance (`applying_by`), and `orphans` answers a row only once that instance has been out of the live set for
 * longer than the silence bound. Chosen over an advisory lock held for the whole apply: a session lock is released the
 * instant its connection drops, also when the process lives on (a network blip, a database restart or failover,
 * an operator's pg_terminate_backend) and its write still lands; a starting instance would then take the lock and
 * record "did not land" next to a landed commit. A killed process stops beating and is gone after the bound, the same
 * as the heartbeat's fail-closed rule: a starting instance (or the periodic pass) settles it from the branch then.
 */
export function postgresProposals(
  pool: Pool,
  bounds: ProposalBounds = DEFAULT_PROPOSAL_BOUNDS,
  owner?: ProposalOwner,
): ProposalStore {
  const findByKey = async (perimeter: string, kind: string, key: string, on: Pool | PoolClient = pool) => {
    const r = await on.query<{ body: unknown }>(
      'SELECT body FROM gb_proposals WHERE perimeter = $1 AND kind = $2 AND idempotency_key = $3',
      [perimeter, kind, key],
    );
    return r.rows[0] ? parse(r.rows[0].body) : undefined;
  };
  return {
    async list(filter = {}) {
      const r = await pool.query<{ body: unknown }>(
        // Newest first, ties by id in byte order: the file adapter's order (ISO times compare as strings there too).
        `SELECT body FROM gb_proposals WHERE ($1::text IS NULL OR perimeter = $1) AND ($2::text IS NULL OR status = $2)
           AND ($3::text IS NULL OR body->>'repo' = $3) AND ($4::text IS NULL OR body->>'branch' = $4)
         ORDER BY created_at COLLATE "C" DESC, id COLLATE "C" ASC`,
        [filter.perimeter ?? null, filter.status ?? null, filter.repo ?? null, filter.branch ?? null],
      );
      return r.rows.map((x) => parse(x.body));
    },
    async get(id) {
      const r = await pool.query<{ body: unknown }>('SELECT body FROM gb_proposals WHERE id = $1', [id]);
      return r.rows[0] ? parse(r.rows[0].body) : undefined;
    },
    findByKey: (perimeter, kind, key) => findByKey(perimeter, kind, key),
    async orphans() {
      const r = await pool.query<{ body: unknown }>(
        `SELECT body FROM gb_proposals p WHERE status IN ('approved', 'applying') AND NOT EXISTS (
           SELECT 1 FROM gb_instances i WHERE i.id = p.applying_by
             AND coalesce(i.stopped_at, i.last_seen) > now() - make_interval(secs => $1))
         ORDER BY created_at COLLATE "C" ASC, id COLLATE "C" ASC`,
        [(owner?.staleMs ?? 0) / 1000],
      );
      return r.rows.map((x) => parse(x.body));
    },
    // The database's clock: one for every instance (issue 21 §3).
    async now() {
      const r = await pool.query<{ ms: string }>('SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint AS ms');
      return Number(r.rows[0]?.ms);
    },
    insert: (p) =>
      inTransaction<InsertOutcome>(pool, async (c) => {
        const stored = Proposal.parse(p);
        await c.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [PERIMETER_LOCK, stored.perimeter]);
        const prior =
          stored.idempotency_key === undefined
            ? undefined
            : await findByKey(stored.perimeter, stored.change.kind, stored.idempotency_key, c);
        if (prior !== undefined) return { commit: false, value: { kind: 'existing', proposal: prior } };
        const stock = await c.query<{ id: string; status: ProposalStatus; bytes: number; updated_at: string }>(
          'SELECT id, status, bytes, updated_at FROM gb_proposals WHERE perimeter = $1',
          [stored.perimeter],
        );
        const admission = admitProposal(stock.rows, sizeOf(stored), bounds);
        if (admission.kind === 'refuse')
          return { commit: false, value: { kind: 'refused', message: admission.message } };
        if (admission.evict.length > 0)
          await c.query('DELETE FROM gb_proposals WHERE perimeter = $1 AND id = ANY($2::text[])', [
            stored.perimeter,
            admission.evict,
          ]);
        const r = await c.query(
          `INSERT INTO gb_proposals ${COLUMNS} VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT DO NOTHING RETURNING id`,
          values(stored),
        );
        // Under the perimeter's lock an idempotency key cannot have been taken meanwhile: this is an id collision.
        if (r.rowCount !== 1) throw new Error(`proposal id collision: ${stored.id}`);
        return { commit: true, value: { kind: 'created', proposal: stored } };
      }),
    transition: (id, from, mutate) =>
      inTransaction<Result<Proposal, ProposalStoreError>>(pool, async (c) => {
        const r = await c.query<{ body: unknown }>('SELECT body FROM gb_proposals WHERE id = $1 FOR UPDATE', [id]);
        const row = r.rows[0];
        if (!row) return { commit: false, value: fail('not_found', `No proposal "${id}".`) };
        const current = parse(row.body);
        if (!from.includes(current.status))
          return { commit: false, value: fail('conflict', `Proposal "${id}" is ${current.status}.`) };
        const moved = Proposal.parse(mutate(current));
        if (moved.id !== id || moved.perimeter !== current.perimeter)
          throw new Error(`a transition may not change a proposal's id or perimeter (${id})`);
        const applier = moved.status === 'approved' || moved.status === 'applying' ? (owner?.instance ?? null) : null;
        // The applier is kept once the row is settled: who applied it stays readable to an operator in the table.
        await c.query(
          `UPDATE gb_proposals SET status = $2, body = $3, bytes = $4, updated_at = $5,
             applying_by = coalesce($6, applying_by) WHERE id = $1`,
          [id, moved.status, JSON.stringify(moved), proposalBytes(moved), moved.updated_at, applier],
        );
        return { commit: true, value: ok(moved) };
      }),
  };
}
