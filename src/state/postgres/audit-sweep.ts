// Retention of the store's audit copy: the same rule as each instance's own ledger (segments beyond `keep`, oldest
// first, never one holding an entry younger than the minimum age), with ages taken on the database's clock so every
// instance judges alike. Rows go a whole segment at a time (everything before a checkpoint), so the copy of a chain
// still starts at entry 1 or at a checkpoint and `audit verify --store` accepts it as it accepts a pruned ledger.
// Every step only ever deletes rows that are old by then; two instances sweeping at once delete the same rows once.
import type { Pool } from 'pg';
import type { AuditRetention, AuditSweep } from '../types.js';
import { withClient } from './client.js';

// The cut is the newest checkpoint that is (a) at least `keep` checkpoints behind the newest (the active file starts
// at the newest; each older one starts a rotated segment) and (b) no later than the first entry younger than the
// minimum age, so every row before it is old. Rows before the cut go.
const PRUNE = `
  WITH cps AS (
    SELECT seq, row_number() OVER (ORDER BY seq DESC) AS rn
      FROM gb_audit WHERE instance = $1 AND kind = 'checkpoint'),
  young AS (
    SELECT (SELECT seq FROM gb_audit WHERE instance = $1 AND ts >= now() - $3::bigint * interval '1 millisecond'
             ORDER BY seq LIMIT 1) AS seq),
  cut AS (
    SELECT max(cps.seq) AS seq FROM cps, young WHERE cps.rn > $2 AND (young.seq IS NULL OR cps.seq <= young.seq))
  DELETE FROM gb_audit a USING cut WHERE a.instance = $1 AND a.seq < cut.seq`;

/** Sweeps every instance's copy (see AuditCopy.sweep). */
export async function sweepAuditCopy(
  pool: Pool,
  o: { readonly defaults: AuditRetention; readonly silentAfterMs: number },
): Promise<AuditSweep> {
  const heads = await pool.query<{ instance: string; keep: number | null; min_age_ms: string | null; silent: boolean }>(
    `SELECT instance, keep, min_age_ms,
            shipped_at < now() - greatest(coalesce(min_age_ms, $1), $2)::bigint * interval '1 millisecond' AS silent
       FROM gb_audit_heads ORDER BY instance`,
    [o.defaults.minAgeMs, o.silentAfterMs],
  );
  let entries = 0;
  let instances = 0;
  for (const h of heads.rows) {
    const keep = h.keep ?? o.defaults.keep;
    const minAgeMs = h.min_age_ms === null ? o.defaults.minAgeMs : Number(h.min_age_ms);
    const dropped = h.silent ? await dropSilent(pool, h.instance, Math.max(minAgeMs, o.silentAfterMs)) : undefined;
    if (dropped !== undefined) {
      entries += dropped;
      instances += 1;
      continue;
    }
    entries += (await pool.query(PRUNE, [h.instance, keep, minAgeMs])).rowCount ?? 0;
  }
  return { entries, instances };
}

/**
 * An instance that shipped nothing for `ageMs` and holds no entry younger than that is gone (a replaced container's
 * ledger): its rows and head go together, under the head's row lock so a shipper that comes back waits and then
 * starts the copy afresh from its oldest file. Returns the rows deleted, or undefined when the instance stays.
 */
async function dropSilent(pool: Pool, instance: string, ageMs: number): Promise<number | undefined> {
  return withClient(pool, async (c) => {
    await c.query('BEGIN');
    try {
      const r = await c.query(
        `SELECT 1 FROM gb_audit_heads h
          WHERE h.instance = $1 AND h.shipped_at < now() - $2::bigint * interval '1 millisecond'
            AND NOT EXISTS (SELECT 1 FROM gb_audit a
                             WHERE a.instance = $1 AND a.ts >= now() - $2::bigint * interval '1 millisecond')
          FOR UPDATE OF h`,
        [instance, ageMs],
      );
      if (r.rowCount === 0) {
        await c.query('ROLLBACK');
        return undefined;
      }
      const gone = await c.query('DELETE FROM gb_audit WHERE instance = $1', [instance]);
      await c.query('DELETE FROM gb_audit_heads WHERE instance = $1', [instance]);
      await c.query('COMMIT');
      return gone.rowCount ?? 0;
    } catch (e) {
      await c.query('ROLLBACK').catch(() => undefined);
      throw e;
    }
  });
}
