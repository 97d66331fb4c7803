import type { Pool } from 'pg';
import type { Counters } from '../types.js';

// The fixed-window rule of core/windows.ts in one statement, on the database's clock (instances' clocks may differ):
// a window older than windowMs restarts at 1; a full window is left as it is and reported refused.
const TAKE = `
WITH t AS (SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint AS now)
INSERT INTO gb_counters AS c (key, window_start, count, refused)
SELECT $1, t.now, 1, false FROM t
ON CONFLICT (key) DO UPDATE SET
  window_start = CASE WHEN excluded.window_start - c.window_start >= $2 THEN excluded.window_start ELSE c.window_start END,
  refused = (excluded.window_start - c.window_start < $2 AND c.count >= $3),
  count = CASE WHEN excluded.window_start - c.window_start >= $2 THEN 1 WHEN c.count >= $3 THEN c.count ELSE c.count + 1 END
RETURNING refused, window_start::float8 AS start, (SELECT now FROM t)::float8 AS now`;

/** Counters in the store: one row per key, updated atomically, so every instance counts against the same window. */
export function postgresCounters(pool: Pool): Counters {
  return {
    async take(key, limit, windowMs) {
      if (limit <= 0) return Math.max(1, Math.ceil(windowMs / 1000));
      const r = await pool.query<{ refused: boolean; start: number; now: number }>(TAKE, [key, windowMs, limit]);
      const row = r.rows[0];
      if (!row) throw new Error('counter upsert returned no row');
      return row.refused ? Math.max(1, Math.ceil((row.start + windowMs - row.now) / 1000)) : undefined;
    },
    async give(key) {
      await pool.query('UPDATE gb_counters SET count = count - 1 WHERE key = $1 AND count > 0', [key]);
    },
  };
}
