// What only the shared store has: changes announced to other instances, migrations under a lock, silence when the
// database goes away, and a full reload when it comes back.
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { materialize } from '../../src/core/index.js';
import { MIGRATIONS } from '../../src/state/postgres/migrations.js';
import { describeStore, openPostgresState, type PostgresOptions } from '../../src/state/postgres/index.js';
import type { SharedState } from '../../src/state/types.js';
import { startPostgres, type TestPostgres } from '../support/postgres.js';

let server: TestPostgres;
beforeAll(async () => {
  server = await startPostgres();
}, 60_000);
afterAll(async () => {
  await server?.destroy();
});

const infra = materialize(
  { id: 'infra', repo: 'acme/platform', read: ['infra/**'], write: [], branches: ['feat'] },
  'main',
);
const opened: SharedState[] = [];
afterEach(async () => {
  for (const s of opened.splice(0)) await s.close();
});
let n = 0;
const fresh = () => server.database(`pgtest_${++n}`);
async function open(url: string, extra: Partial<PostgresOptions> = {}): Promise<SharedState> {
  const s = await openPostgresState({
    url,
    instance: { id: `inst-${opened.length}-${n}`, version: 'v-test' },
    log: () => undefined,
    ...extra,
  });
  if (!s.ok) throw new Error(s.message);
  opened.push(s.value);
  return s.value;
}
async function within(ms: number, cond: () => boolean): Promise<number> {
  const t0 = Date.now();
  while (!cond()) {
    if (Date.now() - t0 > ms) throw new Error(`not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 5));
  }
  return Date.now() - t0;
}

describe('PostgreSQL state', () => {
  it('announces a change to the other instances well within a second (NOTIFY), revision bumped there', async () => {
    const url = await fresh();
    // A long heartbeat: only the notification can deliver the change in time.
    const [a, b] = [await open(url, { beatMs: 60_000 }), await open(url, { beatMs: 60_000 })];
    await a.perimeters.put(infra);
    await within(1000, () => b.perimeters.get('infra') !== undefined);
    const before = b.perimeters.revision();
    await a.perimeters.modify((d) => (d.set('infra', { ...infra, branches: ['main'] }), { ok: true, value: 1 }));
    await within(1000, () => b.perimeters.get('infra')?.branches.length === 1);
    expect(b.perimeters.revision()).toBeGreaterThan(before);
  });

  it('catches a change it was not told about on its next heartbeat', async () => {
    const url = await fresh();
    const b = await open(url, { beatMs: 100 });
    // Written behind every instance's back, without NOTIFY: only the revision check finds it.
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    await c.query('INSERT INTO gb_perimeters (id, body) VALUES ($1, $2)', ['infra', JSON.stringify(infra)]);
    await c.query('UPDATE gb_revision SET rev = rev + 1');
    await c.end();
    await within(1000, () => b.perimeters.get('infra') !== undefined);
  });

  it('migrates once when instances start together, and refuses a schema newer than it knows', async () => {
    const url = await fresh();
    await Promise.all([open(url), open(url), open(url)]);
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    const v = await c.query('SELECT version FROM gb_schema ORDER BY version');
    expect(v.rows.map((r) => r.version)).toEqual(MIGRATIONS.map((_, i) => i + 1));
    await c.query('INSERT INTO gb_schema (version) VALUES ($1)', [MIGRATIONS.length + 1]);
    await c.end();
    const newer = await openPostgresState({ url, instance: { id: 'x', version: 'v' }, log: () => undefined });
    expect(newer.ok).toBe(false);
    if (!newer.ok) expect(newer.message).toMatch(/newer than this git-blinder knows/);
  });

  it('refuses to start on a stored perimeter it cannot read, and never echoes a password', async () => {
    const url = await fresh();
    const c = new pg.Client({ connectionString: url });
    await open(url);
    await c.connect();
    await c.query('INSERT INTO gb_perimeters (id, body) VALUES ($1, $2)', ['bad', JSON.stringify({ id: 'bad' })]);
    await c.end();
    const bad = await openPostgresState({ url, instance: { id: 'x', version: 'v' }, log: () => undefined });
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.code).toBe('corrupt_state');
    const withPassword = url.replace('gb@', 'gb:hunter2secret@').replace(/:\d+\//, ':1/');
    const unreachable = await openPostgresState({
      url: withPassword,
      instance: { id: 'x', version: 'v' },
      log: () => undefined,
      staleMs: 1000,
    });
    expect(unreachable.ok).toBe(false);
    if (!unreachable.ok) expect(unreachable.message).not.toContain('hunter2secret');
    expect(describeStore(withPassword)).not.toContain('hunter2secret');
  });

  it('falls silent when the database stops, and reloads everything it missed when it is back', async () => {
    const url = await fresh();
    const logs: string[] = [];
    const a = await open(url, { beatMs: 100, staleMs: 700, log: (_l, m) => logs.push(m) });
    await a.perimeters.put(infra);
    await server.stop();
    try {
      await within(5000, () => a.health().kind === 'silent');
      await expect(a.counters.take('k', 10, 1000)).rejects.toThrow();
    } finally {
      await server.start();
    }
    // A change made while `a` was cut off (by an instance that came up meanwhile) reaches it after the reconnect.
    const b = await open(url);
    await b.perimeters.delete('infra');
    // The log line comes from the heartbeat's own callback, which may run just after health turns live: wait for both.
    await within(
      5000,
      () =>
        a.health().kind === 'live' &&
        a.perimeters.get('infra') === undefined &&
        logs.includes('state store answers again'),
    );
    expect(logs).toContain('state store heartbeat failed');
    expect(logs).toContain('state store answers again');
  }, 30_000);
});
