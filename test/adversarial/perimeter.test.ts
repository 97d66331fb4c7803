// The adversarial suite: the real server over real repositories, through both upstreams, with real MCP clients,
// trying to get out. Every attack must fail without leaking; every legitimate use must keep working.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { historyAttacks } from './attacks-history.js';
import { httpAttacks } from './attacks-http.js';
import { indistinguishableReads, pathAttacks } from './attacks-paths.js';
import { writeAttacks } from './attacks-writes.js';
import type { Ctx } from './context.js';
import { startFixture, type Fixture } from './fixture.js';
import { Ledger } from './harness.js';
import { legitUses } from './legit.js';

const ledger = new Ledger();
const MIN_DISTINCT_ATTACKS = 150;

afterAll(() => {
  console.log(ledger.summary());
  if (process.env.GB_ADVERSARIAL_SLOW) console.log(ledger.slowest(40));
});

describe.each((process.env.GB_ADVERSARIAL_ONLY ? [process.env.GB_ADVERSARIAL_ONLY] : ['local', 'github']) as ('local' | 'github')[])('%s upstream', (kind) => {
  let fx: Fixture;
  let ctx: Ctx;

  beforeAll(async () => {
    fx = await startFixture(kind);
    const auth = (key: string) => ({ authorization: `Bearer ${key}` });
    ctx = {
      fx,
      app: await fx.srv.connect('/mcp/app', 'legacy', auth(fx.keys.app)),
      narrow: await fx.srv.connect('/mcp/narrow', 'legacy', auth(fx.keys.narrow)),
      modern: await fx.srv.connect('/mcp/app', 'auto', auth(fx.keys.app)),
    };
  });
  afterAll(async () => {
    await fx?.close();
  });

  it('keeps legitimate uses working', { timeout: 120_000 }, async () => {
    const broken = await ledger.runLegit(kind, legitUses(ctx));
    expect(broken.map((b) => `${b.name}: ${b.error}`)).toEqual([]);
  });

  it('blocks read, path and history attacks without leaking', { timeout: 120_000 }, async () => {
    const list = [...pathAttacks(ctx), ...indistinguishableReads(ctx), ...historyAttacks(ctx)];
    const succeeded = await ledger.runAttacks(kind, list);
    expect(succeeded.map((s) => `[${s.category}] ${s.name}: ${s.error}`)).toEqual([]);
  });

  it('blocks HTTP, session, tool and JSON-RPC attacks without leaking', { timeout: 120_000 }, async () => {
    const succeeded = await ledger.runAttacks(kind, httpAttacks(ctx));
    expect(succeeded.map((s) => `[${s.category}] ${s.name}: ${s.error}`)).toEqual([]);
  });

  it('blocks write and limit attacks without leaking or writing', { timeout: 120_000 }, async () => {
    const succeeded = await ledger.runAttacks(kind, writeAttacks(ctx));
    expect(succeeded.map((s) => `[${s.category}] ${s.name}: ${s.error}`)).toEqual([]);
  });

  it(`registers at least ${MIN_DISTINCT_ATTACKS} distinct attacks and 20 uses`, () => {
    const mine = ledger.attacks.filter((a) => a.upstream === kind);
    expect(new Set(mine.map((a) => a.name)).size).toBeGreaterThanOrEqual(MIN_DISTINCT_ATTACKS);
    expect(ledger.legit.filter((u) => u.upstream === kind).length).toBeGreaterThanOrEqual(20);
  });
});
