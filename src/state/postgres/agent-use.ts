import type { Pool } from 'pg';
import { useDue } from '../../core/index.js';
import type { AgentUse } from '../types.js';

/**
 * Last key uses in the store, one row per perimeter and agent, on the database's clock. Each instance writes an agent's
 * use at most once per granularity; a failed write is logged and forgotten (a listing lags, nothing else depends on it).
 */
export function postgresAgentUse(pool: Pool, log: (error: string) => void): AgentUse {
  const recorded = new Map<string, number>();
  return {
    touch(perimeter, agent) {
      const now = Date.now();
      const k = `${perimeter}\u0000${agent}`;
      if (!useDue(recorded.get(k), now)) return;
      recorded.set(k, now);
      pool
        .query(
          `INSERT INTO gb_agent_use (perimeter, agent, last_used) VALUES ($1, $2, clock_timestamp())
           ON CONFLICT (perimeter, agent) DO UPDATE SET last_used = GREATEST(gb_agent_use.last_used, excluded.last_used)`,
          [perimeter, agent],
        )
        .catch((e: Error) => {
          recorded.delete(k);
          log(e.message);
        });
    },
    async lastUse(perimeter) {
      const r = await pool.query<{ agent: string; last_used: Date }>(
        'SELECT agent, last_used FROM gb_agent_use WHERE perimeter = $1',
        [perimeter],
      );
      return Object.fromEntries(r.rows.map((x) => [x.agent, x.last_used.toISOString()]));
    },
  };
}
