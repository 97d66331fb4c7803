// The shipper (issue 21) against a real PostgreSQL: a restart resumes at the store's head (nothing twice, nothing
// skipped), retention never prunes what was not shipped, and a ledger that no longer continues the store's copy stops
// shipping instead of overwriting it.
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openLedger, startShipper, verifyCopy, type AuditEvent } from '../../src/audit/index.js';
import { openAuditCopyReader, openPostgresState } from '../../src/state/postgres/index.js';
import type { AuditCopy, SharedState } from '../../src/state/types.js';
import { sharedPostgres, type SharedPostgres } from '../support/shared-postgres.js';

let db: SharedPostgres;
let url: string;
let state: SharedState;
let copy: AuditCopy;
const dirs: string[] = [];

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
const salt = Buffer.alloc(32, 3);

beforeAll(async () => {
  db = await sharedPostgres();
  url = await db.database('ship');
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

const fresh = async () => {
  const d = await mkdtemp(join(tmpdir(), 'gb-ship-'));
  dirs.push(d);
  return d;
};

async function rows(instance: string): Promise<number[]> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const r = await c.query<{ seq: string }>('SELECT seq FROM gb_audit WHERE instance = $1 ORDER BY seq', [instance]);
    return r.rows.map((x) => Number(x.seq));
  } finally {
    await c.end();
  }
}

describe('audit shipping', () => {
  it('resumes at the head after a restart: every entry once, in order, and the copy verifies', async () => {
    const dir = await fresh();
    const ship = await startShipper({ dir, instance: 'resume', copy, intervalMs: 60_000, maxEntries: 4 });
    const ledger = await openLedger({ dir, salt, onDurable: (s) => ship.durable(s) });
    for (let i = 0; i < 10; i++) await ledger.append(event(i));
    await ship.flush();
    expect(ship.shippedThrough()).toBe(10);
    expect(ship.state().batches).toBe(3);
    await ship.close();
    // Written while no shipper runs (a stopped instance, a store away): the next start ships exactly these.
    for (let i = 10; i < 15; i++) await ledger.append(event(i));
    await ledger.close();
    const again = await startShipper({ dir, instance: 'resume', copy, intervalMs: 60_000 });
    await again.flush();
    expect(again.shippedThrough()).toBe(15);
    expect(again.state().shipped).toBe(5);
    await again.close();
    expect(await rows('resume')).toEqual(Array.from({ length: 15 }, (_, i) => i + 1));
    const reader = await openAuditCopyReader(url);
    if (!reader.ok) throw new Error(reader.message);
    const out = await verifyCopy(reader.copy);
    await reader.close();
    expect(out.ok && out.reports.find((r) => r.instance === 'resume')).toMatchObject({ ok: true, entries: 15 });
  });

  it('never prunes a segment the store has not received, and prunes it once shipped', async () => {
    const dir = await fresh();
    let through = 0;
    const ledger = await openLedger({
      dir,
      salt,
      maxBytes: 4096,
      keep: 0,
      minAgeMs: 0,
      shippedThrough: () => through,
    });
    for (let i = 0; i < 60; i++) await ledger.append(event(i));
    const segments = async () => (await readdir(dir)).filter((n) => n.includes('.segment-')).length;
    const held = await segments();
    expect(held).toBeGreaterThan(2);
    expect(ledger.state().retention.held).toBe(held);
    expect(ledger.state().retention.prunedSegments).toBe(0);
    // Everything shipped: the next rotation prunes what retention allows.
    through = Number.MAX_SAFE_INTEGER;
    for (let i = 0; i < 30; i++) await ledger.append(event(i));
    expect(ledger.state().retention.prunedSegments).toBeGreaterThanOrEqual(held);
    await ledger.close();
  });

  it('stops, and says why, when the local ledger does not continue what the store holds', async () => {
    const dir = await fresh();
    const ship = await startShipper({ dir, instance: 'replaced', copy, intervalMs: 60_000 });
    const ledger = await openLedger({ dir, salt, onDurable: (s) => ship.durable(s) });
    for (let i = 0; i < 3; i++) await ledger.append(event(i));
    await ship.flush();
    await ship.close();
    await ledger.close();
    // The files replaced by a new ledger under the same name: its seq 1.. are not the store's.
    await rm(join(dir, 'audit.jsonl'));
    const other = await openLedger({ dir, salt });
    for (let i = 0; i < 5; i++) await other.append(event(100 + i));
    await other.close();
    const next = await startShipper({ dir, instance: 'replaced', copy, intervalMs: 60_000 });
    await next.flush();
    expect(next.state().stopped).toMatch(/entry 4 does not continue the chain the store holds for replaced/);
    expect(next.shippedThrough()).toBe(3);
    await next.close();
    expect(await rows('replaced')).toEqual([1, 2, 3]);
  });
});
