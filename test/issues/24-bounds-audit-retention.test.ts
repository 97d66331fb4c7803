// Bounds review, item 1: the store's audit copy keeps what each instance's ledger keeps. Before, `gb_audit` grew
// forever while every ledger pruned by --audit-keep / --audit-min-age. Real ledgers with a clock set back, shipped to a
// real PostgreSQL: the sweep removes whole old segments beyond `keep` (ages on the database's clock), never a young
// entry, is idempotent when instances sweep at once, drops a ledger silent past its age, and the copy still verifies.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openLedger, startShipper, verifyCopy, type AuditEvent } from '../../src/audit/index.js';
import { openPostgresState } from '../../src/state/postgres/index.js';
import type { AuditCopy, SharedState } from '../../src/state/types.js';
import { sharedPostgres, type SharedPostgres } from '../support/shared-postgres.js';

const DAY = 86_400_000;
let db: SharedPostgres;
let url: string;
let state: SharedState;
let copy: AuditCopy;
const dirs: string[] = [];
const salt = Buffer.alloc(32, 5);
const event = (i: number): AuditEvent => ({
  surface: 'agent',
  perimeter: 'docs',
  tool: 'get_file',
  verdict: 'allow',
  result: 'ok',
  bytes: i,
  durationMs: 1,
  paths: [`docs/${i}.md`],
});
const defaults = { defaults: { keep: 5, minAgeMs: 30 * DAY }, silentAfterMs: 30 * DAY };

beforeAll(async () => {
  db = await sharedPostgres();
  url = await db.database('bounds_audit');
  const opened = await openPostgresState({ url, instance: { id: 'test', version: 't' }, log: () => undefined });
  if (!opened.ok) throw new Error(opened.message);
  state = opened.value;
  copy = state.audit!;
}, 60_000);

afterAll(async () => {
  await state?.close();
  await db?.destroy();
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

async function sql<T extends pg.QueryResultRow>(text: string, args: unknown[] = []): Promise<T[]> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query<T>(text, args)).rows;
  } finally {
    await c.end();
  }
}

const stored = async (instance: string) =>
  (
    await sql<{ seq: string; kind: string; ts: Date }>(
      'SELECT seq, kind, ts FROM gb_audit WHERE instance = $1 ORDER BY seq',
      [instance],
    )
  ).map((r) => ({ seq: Number(r.seq), kind: r.kind, ts: r.ts.getTime() }));

/**
 * A ledger whose first `old` entries are dated `ageDays` ago and the next `young` are dated now, rotated every 4 KiB
 * and never pruned locally, shipped under `instance` with the given retention.
 */
async function shipLedger(
  instance: string,
  o: { old: number; young: number; ageDays: number; keep: number; minAgeMs: number },
) {
  const dir = await mkdtemp(join(tmpdir(), 'gb-bounds-audit-'));
  dirs.push(dir);
  let clock = Date.now() - o.ageDays * DAY;
  const ship = await startShipper({
    dir,
    instance,
    copy,
    intervalMs: 3_600_000,
    retention: { keep: o.keep, minAgeMs: o.minAgeMs },
  });
  const ledger = await openLedger({
    dir,
    salt,
    maxBytes: 4096,
    keep: 1000,
    minAgeMs: 0,
    now: () => new Date(clock),
    onDurable: (s) => ship.durable(s),
  });
  for (let i = 0; i < o.old; i++) await ledger.append(event(i));
  clock = Date.now();
  for (let i = 0; i < o.young; i++) await ledger.append(event(1000 + i));
  await ledger.close();
  return ship;
}

const verified = async (instance: string) => {
  const out = await verifyCopy(copy);
  if (!out.ok) throw new Error(out.usage);
  return out.reports.find((r) => r.instance === instance);
};

describe('bounds: the audit copy in the store is pruned like the ledgers it copies', () => {
  it('drops whole segments older than the minimum age beyond keep, never a young entry, and still verifies', async () => {
    const ship = await shipLedger('aged', { old: 80, young: 30, ageDays: 60, keep: 1, minAgeMs: 30 * DAY });
    // The first round ships everything, then sweeps (this instance is the only one: its own retention applies).
    await ship.flush();
    const head = ship.shippedThrough();
    const rows = await stored('aged');
    expect(ship.state().lastSweep?.entries).toBeGreaterThan(0);
    const first = rows[0]!;
    expect(first.kind).toBe('checkpoint');
    expect(first.seq).toBeGreaterThan(1);
    // Nothing young went, the copy is contiguous to the head, and what remains before the young entries is at most
    // `keep` old segments plus the one the young entries started in.
    const cutoff = Date.now() - 30 * DAY;
    const firstYoung = rows.find((r) => r.ts >= cutoff)!;
    expect(rows.map((r) => r.seq)).toEqual(Array.from({ length: head - first.seq + 1 }, (_, i) => first.seq + i));
    expect(first.seq).toBeLessThanOrEqual(firstYoung.seq);
    const oldCheckpoints = rows.filter((r) => r.kind === 'checkpoint' && r.seq <= firstYoung.seq).length;
    expect(oldCheckpoints).toBeLessThanOrEqual(2);
    expect(await verified('aged')).toMatchObject({ ok: true, startsAfterPruning: true, lastSeq: head });
    // Idempotent, and safe when several instances sweep at once.
    const again = await Promise.all([copy.sweep(defaults), copy.sweep(defaults), copy.sweep(defaults)]);
    expect(again.map((a) => a.entries)).toEqual([0, 0, 0]);
    expect((await stored('aged')).map((r) => r.seq)).toEqual(rows.map((r) => r.seq));
    await ship.close();
  });

  it('keeps old segments within keep, and every segment younger than the minimum age', async () => {
    const many = await shipLedger('keeps', { old: 60, young: 0, ageDays: 60, keep: 1000, minAgeMs: 30 * DAY });
    await many.flush();
    await many.close();
    const young = await shipLedger('young', { old: 60, young: 0, ageDays: 1, keep: 0, minAgeMs: 30 * DAY });
    await young.flush();
    await young.close();
    await copy.sweep(defaults);
    expect((await stored('keeps'))[0]?.seq).toBe(1);
    expect((await stored('young'))[0]?.seq).toBe(1);
    expect(await verified('keeps')).toMatchObject({ ok: true, startsAfterPruning: false });
  });

  it('drops a ledger that shipped nothing for its age and holds only old entries, head included', async () => {
    const gone = await shipLedger('gone', { old: 20, young: 0, ageDays: 60, keep: 1000, minAgeMs: 30 * DAY });
    await gone.flush();
    await gone.close();
    expect((await stored('gone')).length).toBeGreaterThan(0);
    // Shipped recently: it stays, whatever its entries' age.
    expect((await copy.sweep(defaults)).instances).toBe(0);
    // Forty days later on the database's clock.
    await sql(`UPDATE gb_audit_heads SET shipped_at = now() - interval '40 days' WHERE instance = 'gone'`);
    const out = await copy.sweep(defaults);
    expect(out.instances).toBe(1);
    expect(await stored('gone')).toEqual([]);
    expect((await copy.instances()).map((i) => i.instance)).not.toContain('gone');
    // Every other chain still verifies.
    const all = await verifyCopy(copy);
    expect(all.ok && all.reports.every((r) => r.ok)).toBe(true);
  });

  it('applies the defaults to a ledger that recorded no retention (an instance of the previous version)', async () => {
    const ship = await shipLedger('legacy', { old: 80, young: 5, ageDays: 60, keep: 1000, minAgeMs: 30 * DAY });
    await ship.flush();
    await ship.close();
    // As an older version leaves it: no retention with the head.
    await sql(`UPDATE gb_audit_heads SET keep = NULL, min_age_ms = NULL WHERE instance = 'legacy'`);
    const before = (await stored('legacy')).length;
    await copy.sweep({ defaults: { keep: 0, minAgeMs: 30 * DAY }, silentAfterMs: 30 * DAY });
    const after = await stored('legacy');
    expect(after.length).toBeLessThan(before);
    expect(after[0]?.kind).toBe('checkpoint');
    expect(await verified('legacy')).toMatchObject({ ok: true });
  });

  it('a verify that overlaps a sweep reads the pruned copy again instead of reporting a gap', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'gb-bounds-audit-'));
    dirs.push(dir);
    let clock = Date.now() - 60 * DAY;
    const ship = await startShipper({
      dir,
      instance: 'overlap',
      copy,
      intervalMs: 3_600_000,
      retention: { keep: 1000 },
    });
    const ledger = await openLedger({
      dir,
      salt,
      maxBytes: 4096,
      keep: 10_000,
      minAgeMs: 0,
      now: () => new Date(clock),
      onDurable: (x) => ship.durable(x),
    });
    // More than one page (1000 rows) of old entries, then a few young ones.
    await Promise.all(Array.from({ length: 1300 }, (_, i) => ledger.append(event(i))));
    clock = Date.now();
    await Promise.all(Array.from({ length: 5 }, (_, i) => ledger.append(event(5000 + i))));
    await ledger.close();
    await ship.flush();
    await ship.close();
    expect((await stored('overlap'))[0]?.seq).toBe(1);
    // The operator lowers --audit-keep; another instance's sweep runs while this verify reads its second page.
    await sql(`UPDATE gb_audit_heads SET keep = 1 WHERE instance = 'overlap'`);
    let swept = false;
    const racing: Pick<AuditCopy, 'chain' | 'instances'> = {
      instances: () => copy.instances(),
      async chain(instance, afterSeq, limit) {
        if (instance === 'overlap' && afterSeq > 0 && !swept) {
          swept = true;
          expect((await copy.sweep(defaults)).entries).toBeGreaterThan(0);
        }
        return copy.chain(instance, afterSeq, limit);
      },
    };
    const out = await verifyCopy(racing);
    expect(swept).toBe(true);
    expect(out.ok && out.reports.find((r) => r.instance === 'overlap')).toMatchObject({
      ok: true,
      startsAfterPruning: true,
    });
  }, 120_000);
});
