// The PostgreSQL proposal store: one row per proposal, transitions under a row lock, so an approval on one instance
// and a cancel on another cannot both win. Reads go to the database every time (no copy to fall out of date).
import type { Pool } from 'pg';
import { fail, ok, Proposal } from '../../core/index.js';
import type { ProposalStore } from '../proposals.js';
import { withClient } from './client.js';

/** A stored body that no longer parses is a broken invariant: never skipped, never widened around. */
function parse(body: unknown): Proposal {
  const p = Proposal.safeParse(body);
  if (!p.success) throw new Error(`a stored proposal is invalid (${p.error.issues[0]?.message ?? 'schema'})`);
  return p.data;
}

const COLUMNS = '(id, perimeter, kind, idempotency_key, status, created_at, body)';
const values = (p: Proposal) => [p.id, p.perimeter, p.change.kind, p.idempotency_key ?? null, p.status, p.created_at, JSON.stringify(p)];

/** The proposal store over `pool`. */
export function postgresProposals(pool: Pool): ProposalStore {
  const findByKey = async (perimeter: string, kind: string, key: string) => {
    const r = await pool.query<{ body: unknown }>('SELECT body FROM gb_proposals WHERE perimeter = $1 AND kind = $2 AND idempotency_key = $3', [perimeter, kind, key]);
    return r.rows[0] ? parse(r.rows[0].body) : undefined;
  };
  return {
    async list(filter = {}) {
      const r = await pool.query<{ body: unknown }>(
        // Newest first, ties by id in byte order: the file adapter's order (ISO times compare as strings there too).
        `SELECT body FROM gb_proposals WHERE ($1::text IS NULL OR perimeter = $1) AND ($2::text IS NULL OR status = $2)
         ORDER BY created_at COLLATE "C" DESC, id COLLATE "C" ASC`,
        [filter.perimeter ?? null, filter.status ?? null],
      );
      return r.rows.map((x) => parse(x.body));
    },
    async get(id) {
      const r = await pool.query<{ body: unknown }>('SELECT body FROM gb_proposals WHERE id = $1', [id]);
      return r.rows[0] ? parse(r.rows[0].body) : undefined;
    },
    findByKey,
    async insert(p) {
      const stored = Proposal.parse(p);
      const r = await pool.query(`INSERT INTO gb_proposals ${COLUMNS} VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT DO NOTHING RETURNING id`, values(stored));
      if (r.rowCount === 1) return { created: true, proposal: stored };
      // Either the same idempotency key (another instance may have inserted it a moment ago) or an id collision.
      const prior = stored.idempotency_key === undefined ? undefined : await findByKey(stored.perimeter, stored.change.kind, stored.idempotency_key);
      if (prior !== undefined) return { created: false, proposal: prior };
      throw new Error(`proposal id collision: ${stored.id}`);
    },
    transition: (id, from, mutate) =>
      withClient(pool, async (c) => {
        await c.query('BEGIN');
        try {
          const r = await c.query<{ body: unknown }>('SELECT body FROM gb_proposals WHERE id = $1 FOR UPDATE', [id]);
          const row = r.rows[0];
          if (!row) {
            await c.query('ROLLBACK');
            return fail('not_found' as const, `No proposal "${id}".`);
          }
          const current = parse(row.body);
          if (!from.includes(current.status)) {
            await c.query('ROLLBACK');
            return fail('conflict' as const, `Proposal "${id}" is ${current.status}.`);
          }
          const moved = Proposal.parse(mutate(current));
          await c.query('UPDATE gb_proposals SET status = $2, body = $3 WHERE id = $1', [id, moved.status, JSON.stringify(moved)]);
          await c.query('COMMIT');
          return ok(moved);
        } catch (e) {
          await c.query('ROLLBACK').catch(() => undefined);
          throw e;
        }
      }),
  };
}
