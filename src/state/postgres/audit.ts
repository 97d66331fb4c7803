// The store's copy of every instance's audit chain (issue 21). Rows arrive in batches from each instance's shipper,
// after the entries are durable on that instance's disk; a batch and the head it moves commit together.
import pg, { type Pool } from 'pg';
import type { AuditCopy, AuditCopyEntry, AuditCopyInstance, AuditHead } from '../types.js';
import { sweepAuditCopy } from './audit-sweep.js';
import { withClient } from './client.js';
import { describeStore } from './describe.js';

interface Row {
  instance: string;
  seq: string;
  ts: Date;
  kind: string;
  perimeter: string | null;
  tool: string | null;
  client: string | null;
  verdict: string | null;
  line: string;
}

const COLUMNS = 'instance, seq, ts, kind, perimeter, tool, client, verdict, line';
const entry = (r: Row): AuditCopyEntry => ({
  instance: r.instance,
  seq: Number(r.seq),
  ts: r.ts.toISOString(),
  kind: r.kind,
  perimeter: r.perimeter,
  tool: r.tool,
  client: r.client,
  verdict: r.verdict,
  line: r.line,
});
const headOf = (r: { seq: string; hash: string } | undefined): AuditHead | undefined =>
  r === undefined ? undefined : { seq: Number(r.seq), hash: r.hash };
const same = (a: AuditHead | undefined, b: AuditHead | undefined): boolean =>
  a === undefined || b === undefined ? a === b : a.seq === b.seq && a.hash === b.hash;

/** The audit copy over a pool; the CLI's readers open it without registering as an instance. */
export function postgresAuditCopy(pool: Pool): AuditCopy {
  return {
    async head(instance) {
      const r = await pool.query<{ seq: string; hash: string }>(
        'SELECT seq, hash FROM gb_audit_heads WHERE instance = $1',
        [instance],
      );
      return headOf(r.rows[0]);
    },

    ship: (instance, after, entries, retention) =>
      withClient(pool, async (c) => {
        await c.query('BEGIN');
        try {
          const r = await c.query<{ seq: string; hash: string }>(
            'SELECT seq, hash FROM gb_audit_heads WHERE instance = $1 FOR UPDATE',
            [instance],
          );
          const now = headOf(r.rows[0]);
          if (!same(now, after)) {
            await c.query('ROLLBACK');
            return { kind: 'moved', head: now };
          }
          const last = entries.at(-1);
          if (last === undefined) throw new Error('audit copy: an empty batch was shipped');
          await c.query(
            `INSERT INTO gb_audit (${COLUMNS})
             SELECT $1, * FROM unnest($2::bigint[], $3::timestamptz[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[])`,
            [
              instance,
              entries.map((e) => e.seq),
              entries.map((e) => e.ts),
              entries.map((e) => e.kind),
              entries.map((e) => e.perimeter ?? null),
              entries.map((e) => e.tool ?? null),
              entries.map((e) => e.client ?? null),
              entries.map((e) => e.verdict ?? null),
              entries.map((e) => e.line),
            ],
          );
          await c.query(
            `INSERT INTO gb_audit_heads (instance, seq, hash, shipped_at, keep, min_age_ms) VALUES ($1, $2, $3, now(), $4, $5)
             ON CONFLICT (instance) DO UPDATE SET seq = excluded.seq, hash = excluded.hash, shipped_at = now(),
               keep = COALESCE(excluded.keep, gb_audit_heads.keep),
               min_age_ms = COALESCE(excluded.min_age_ms, gb_audit_heads.min_age_ms)`,
            [instance, last.seq, last.hash, retention?.keep ?? null, retention?.minAgeMs ?? null],
          );
          await c.query('COMMIT');
          return { kind: 'shipped', head: { seq: last.seq, hash: last.hash } };
        } catch (e) {
          await c.query('ROLLBACK').catch(() => undefined);
          throw e;
        }
      }),

    sweep: (o) => sweepAuditCopy(pool, o),

    async instances() {
      const r = await pool.query<{
        instance: string;
        seq: string | null;
        hash: string | null;
        shipped_at: Date | null;
      }>(
        `SELECT i.instance, h.seq, h.hash, h.shipped_at
           FROM (SELECT instance FROM gb_audit_heads UNION SELECT DISTINCT instance FROM gb_audit) i
           LEFT JOIN gb_audit_heads h ON h.instance = i.instance
          ORDER BY i.instance`,
      );
      return r.rows.map((x): AuditCopyInstance => ({
        instance: x.instance,
        ...(x.seq === null || x.hash === null ? {} : { head: { seq: Number(x.seq), hash: x.hash } }),
        ...(x.shipped_at === null ? {} : { shippedAt: x.shipped_at.toISOString() }),
      }));
    },

    async query(q) {
      const where: string[] = ["kind = 'event'"];
      const args: unknown[] = [];
      const bind = (v: unknown): string => {
        args.push(v);
        return `$${args.length}`;
      };
      if (q.perimeter !== undefined) where.push(`perimeter = ${bind(q.perimeter)}`);
      if (q.client !== undefined) where.push(`client = ${bind(q.client)}`);
      if (q.tool !== undefined) where.push(`tool = ${bind(q.tool)}`);
      if (q.verdict !== undefined) where.push(`verdict = ${bind(q.verdict)}`);
      if (q.since !== undefined) where.push(`ts >= ${bind(q.since)}::timestamptz`);
      if (q.until !== undefined) where.push(`ts <= ${bind(q.until)}::timestamptz`);
      if (q.after !== undefined) {
        const op = q.from === 'oldest' ? '>' : '<';
        where.push(
          `(ts, instance, seq) ${op} (${bind(q.after.ts)}::timestamptz, ${bind(q.after.instance)}, ${bind(q.after.seq)}::bigint)`,
        );
      }
      const order = q.from === 'oldest' ? 'ts, instance, seq' : 'ts DESC, instance DESC, seq DESC';
      const r = await pool.query<Row>(
        `SELECT ${COLUMNS} FROM gb_audit WHERE ${where.join(' AND ')} ORDER BY ${order} LIMIT ${bind(q.limit)}`,
        args,
      );
      const rows = r.rows.map(entry);
      return q.from === 'oldest' ? rows : rows.reverse();
    },

    async chain(instance, afterSeq, limit) {
      const r = await pool.query<Row>(
        `SELECT ${COLUMNS} FROM gb_audit WHERE instance = $1 AND seq > $2 ORDER BY seq LIMIT $3`,
        [instance, afterSeq, limit],
      );
      return r.rows.map(entry);
    },
  };
}

/** The audit copy for a reader (`audit query|tail|verify --store`): no heartbeat, no migration, no instance row. */
export async function openAuditCopyReader(
  url: string,
): Promise<
  { ok: true; copy: AuditCopy; close(): Promise<void> } | { ok: false; code: 'unreachable' | 'schema'; message: string }
> {
  const where = describeStore(url);
  const pool = new pg.Pool({ connectionString: url, max: 2, connectionTimeoutMillis: 5_000, query_timeout: 60_000 });
  pool.on('error', () => undefined);
  try {
    const r = await pool.query<{ t: string | null }>("SELECT to_regclass('gb_audit')::text AS t");
    if (r.rows[0]?.t == null) {
      await pool.end();
      return {
        ok: false,
        code: 'schema',
        message: `The store at ${where} holds no audit copy yet: start an instance of this version on it first.`,
      };
    }
  } catch (e) {
    await pool.end().catch(() => undefined);
    return { ok: false, code: 'unreachable', message: `Cannot open the store at ${where} (${(e as Error).message}).` };
  }
  return { ok: true, copy: postgresAuditCopy(pool), close: () => pool.end() };
}
