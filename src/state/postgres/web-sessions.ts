// Web sessions in the store: any instance behind a balancer knows a browser another one signed in. Expiry is computed
// on the database's clock, never an instance's (one instance ahead would otherwise sign everyone out, or keep a
// session alive past its bound).
import type { Pool } from 'pg';
import type { WebSessionLimits, WebSessionStore } from '../types.js';

/** The rows past either bound, in the database's time. */
const EXPIRED = `clock_timestamp() - last_seen > $1 * interval '1 millisecond'
  OR clock_timestamp() - created_at > $2 * interval '1 millisecond'`;

const bounds = (l: WebSessionLimits) => [l.idleMs, l.maxAgeMs];

/** Web sessions in `gb_web_sessions` (hashed ids only). */
export function postgresWebSessions(pool: Pool): WebSessionStore {
  return {
    async create(idHash, l) {
      await pool.query(`DELETE FROM gb_web_sessions WHERE ${EXPIRED}`, bounds(l));
      await pool.query(
        'INSERT INTO gb_web_sessions (id_hash, created_at, last_seen) VALUES ($1, clock_timestamp(), clock_timestamp())',
        [idHash],
      );
      // The newest `max` stay; two sign-ins racing on two instances may leave one fewer, never one more.
      await pool.query(
        `DELETE FROM gb_web_sessions WHERE id_hash IN
           (SELECT id_hash FROM gb_web_sessions ORDER BY last_seen DESC, created_at DESC OFFSET $1)`,
        [l.max],
      );
    },
    async touch(idHash, l) {
      const r = await pool.query(
        `UPDATE gb_web_sessions SET last_seen = clock_timestamp() WHERE id_hash = $3 AND NOT (${EXPIRED})`,
        [...bounds(l), idHash],
      );
      if ((r.rowCount ?? 0) > 0) return true;
      await pool.query('DELETE FROM gb_web_sessions WHERE id_hash = $1', [idHash]);
      return false;
    },
    async destroy(idHash) {
      await pool.query('DELETE FROM gb_web_sessions WHERE id_hash = $1', [idHash]);
    },
    async count(l) {
      await pool.query(`DELETE FROM gb_web_sessions WHERE ${EXPIRED}`, bounds(l));
      const r = await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM gb_web_sessions');
      return r.rows[0]?.n ?? 0;
    },
  };
}
