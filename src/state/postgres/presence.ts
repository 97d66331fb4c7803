// Presence in the store: every instance sees the same notes and leases, on the database's clock.
import { randomBytes } from 'node:crypto';
import type { Pool } from 'pg';
import { ACTIVITY_KEEP_MS, ACTIVITY_MAX_PER_PERIMETER } from '../../core/index.js';
import type { ActivityEntry, Lease, PresenceStore } from '../presence.js';

interface LeaseRow {
  id: string;
  perimeter: string;
  agent: string;
  repo: string;
  branch: string;
  patterns: string[];
  write: string[];
  expires_at: Date;
}

const leaseOf = (r: LeaseRow): Lease => ({
  id: r.id,
  perimeter: r.perimeter,
  agent: r.agent,
  repo: r.repo,
  branch: r.branch,
  patterns: r.patterns,
  write: r.write,
  expiresAt: r.expires_at.toISOString(),
});

const LEASE_COLUMNS = 'id, perimeter, agent, repo, branch, patterns, write, expires_at';

export function postgresPresence(pool: Pool): PresenceStore {
  return {
    async note(n) {
      if (n.kind === 'seen') {
        await pool.query(
          `INSERT INTO gb_activity (kind, perimeter, agent, repo, branch, paths) VALUES ('seen', $1, $2, $3, $4, '[]')
           ON CONFLICT (repo, branch, perimeter, agent) WHERE kind = 'seen' DO UPDATE SET at = clock_timestamp()`,
          [n.perimeter, n.agent, n.repo, n.branch],
        );
        return;
      }
      await pool.query(
        `INSERT INTO gb_activity (kind, perimeter, agent, repo, branch, paths) VALUES ('wrote', $1, $2, $3, $4, $5)`,
        [n.perimeter, n.agent, n.repo, n.branch, JSON.stringify(n.paths)],
      );
      // Bounded: notes older than the keep time go, and each perimeter keeps its newest `wrote` notes on a repository up
      // to its `keep` (its write budget: only the writer's own notes can be over it, so one perimeter never pushes out
      // another's, and within its budget none of its own go either; `seen` notes replace each other).
      await pool.query(
        `DELETE FROM gb_activity WHERE repo = $1 AND (at < clock_timestamp() - make_interval(secs => $2)
           OR id IN (SELECT id FROM gb_activity WHERE repo = $1 AND perimeter = $3 AND kind = 'wrote'
                     ORDER BY at DESC, id DESC OFFSET $4))`,
        [n.repo, ACTIVITY_KEEP_MS / 1000, n.perimeter, n.keep ?? ACTIVITY_MAX_PER_PERIMETER],
      );
    },
    async recent(repo, branch, windowMs) {
      const r = await pool.query<{
        kind: 'seen' | 'wrote';
        perimeter: string;
        agent: string;
        paths: string[];
        at: Date;
      }>(
        `SELECT kind, perimeter, agent, paths, at FROM gb_activity
         WHERE repo = $1 AND branch = $2 AND at > clock_timestamp() - make_interval(secs => $3)
         ORDER BY at DESC, id DESC`,
        [repo, branch, windowMs / 1000],
      );
      return r.rows.map((x): ActivityEntry => ({
        kind: x.kind,
        perimeter: x.perimeter,
        agent: x.agent,
        repo,
        branch,
        paths: x.paths,
        at: x.at.toISOString(),
      }));
    },
    async acquire(req) {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        // One agent's acquires are serialised, so two at once cannot both pass the bound.
        await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`lease:${req.perimeter}:${req.agent}`]);
        const held = await client.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM gb_leases WHERE perimeter = $1 AND agent = $2 AND expires_at > clock_timestamp()`,
          [req.perimeter, req.agent],
        );
        const n = held.rows[0]?.n ?? 0;
        if (n >= req.maxPerAgent) {
          await client.query('ROLLBACK');
          return { kind: 'limit', held: n };
        }
        await client.query('DELETE FROM gb_leases WHERE expires_at <= clock_timestamp()');
        const r = await client.query<LeaseRow>(
          `INSERT INTO gb_leases (${LEASE_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7,
             clock_timestamp() + make_interval(secs => $8)) RETURNING ${LEASE_COLUMNS}`,
          [
            `ls_${randomBytes(12).toString('hex')}`,
            req.perimeter,
            req.agent,
            req.repo,
            req.branch,
            JSON.stringify(req.patterns),
            JSON.stringify(req.write),
            req.ttlSeconds,
          ],
        );
        await client.query('COMMIT');
        const row = r.rows[0];
        if (!row) throw new Error('lease insert returned no row');
        return { kind: 'acquired', lease: leaseOf(row) };
      } catch (err) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw err;
      } finally {
        client.release();
      }
    },
    async release(id, perimeter, agent) {
      const r = await pool.query(
        'DELETE FROM gb_leases WHERE id = $1 AND perimeter = $2 AND agent = $3 AND expires_at > clock_timestamp()',
        [id, perimeter, agent],
      );
      return (r.rowCount ?? 0) > 0;
    },
    async leases(repo, branch) {
      const r = await pool.query<LeaseRow>(
        `SELECT ${LEASE_COLUMNS} FROM gb_leases WHERE repo = $1 AND branch = $2 AND expires_at > clock_timestamp()
         ORDER BY expires_at, id`,
        [repo, branch],
      );
      return r.rows.map(leaseOf);
    },
    async drop(perimeter, agent) {
      if (agent === undefined) await pool.query('DELETE FROM gb_leases WHERE perimeter = $1', [perimeter]);
      else await pool.query('DELETE FROM gb_leases WHERE perimeter = $1 AND agent = $2', [perimeter, agent]);
    },
  };
}
