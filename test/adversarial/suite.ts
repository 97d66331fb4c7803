// The adversarial suite: the real server over real repositories, through both upstreams, with real MCP clients,
// trying to get out. Every attack must fail without leaking; every legitimate use must keep working.
// The two upstreams run side by side (each against its own server and bare repository); within one upstream the
// phases run in order, because write attacks compare branch heads before and after.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aliasAttacks } from './attacks-aliases.js';
import { editAttacks } from './attacks-edits.js';
import { encodingAttacks } from './attacks-encodings.js';
import { historyAttacks } from './attacks-history.js';
import { httpAttacks } from './attacks-http.js';
import { pivotAttacks } from './attacks-pivot.js';
import { sessionAttacks } from './attacks-sessions.js';
import { oracleReadAttacks, oracleWriteAttacks } from './attacks-oracles.js';
import { pagingAttacks } from './attacks-paging.js';
import { indistinguishableReads, pathAttacks } from './attacks-paths.js';
import { searchAttacks } from './attacks-search.js';
import { structureAttacks } from './attacks-structure.js';
import { resourceAttacks } from './attacks-resources.js';
import { workspaceAttacks } from './attacks-workspace.js';
import { writeAttacks } from './attacks-writes.js';
import { webAttacks } from './attacks-web.js';
import { proposalAttacks, workspaceProposalAttacks } from './attacks-proposals.js';
import type { Ctx } from './context.js';
import { startFixture, type Fixture } from './fixture.js';
import { Ledger } from './harness.js';
import { legitUses } from './legit.js';

export type Kind = 'local' | 'github';
const MIN_DISTINCT_ATTACKS = 150;
const MIN_LEGIT_USES = 20;

/**
 * Registers the whole adversarial run for one upstream (each kind in its own test file, so the two run in parallel
 * forks). `GB_ADVERSARIAL_ONLY=local|github` skips the other file's fixture entirely.
 */
export function adversarialSuite(only: Kind): void {
  const KINDS: Kind[] = process.env.GB_ADVERSARIAL_ONLY && process.env.GB_ADVERSARIAL_ONLY !== only ? [] : [only];
  const ledger = new Ledger();
  const contexts = new Map<Kind, Ctx>();

  async function contextFor(kind: Kind): Promise<Ctx> {
    const fx: Fixture = await startFixture(kind);
    const auth = (key: string) => ({ authorization: `Bearer ${key}` });
    return {
      fx,
      app: await fx.srv.connect('/mcp/app', 'legacy', auth(fx.keys.app)),
      narrow: await fx.srv.connect('/mcp/narrow', 'legacy', auth(fx.keys.narrow)),
      modern: await fx.srv.connect('/mcp/app', 'auto', auth(fx.keys.app)),
    };
  }

  beforeAll(async () => {
    const built = await Promise.all(KINDS.map(contextFor));
    KINDS.forEach((k, i) => contexts.set(k, built[i] as Ctx));
  }, 120_000);

  afterAll(async () => {
    console.log(ledger.summary());
    if (process.env.GB_ADVERSARIAL_SLOW) console.log(ledger.slowest(40));
    await Promise.all([...contexts.values()].map((c) => c.fx.close()));
  });

  const describeFailures = (list: { category: string; name: string; error?: string }[]) =>
    list.map((s) => `[${s.category}] ${s.name}: ${s.error}`);

  describe('adversarial perimeter', () => {
    for (const kind of KINDS) {
      it.concurrent(
        `${kind} upstream: legitimate uses work, every attack fails without leaking`,
        { timeout: 480_000 },
        async () => {
          const ctx = contexts.get(kind);
          if (!ctx) throw new Error(`no fixture for ${kind}`);
          const broken = await ledger.runLegit(kind, legitUses(ctx));
          const reads = await ledger.runAttacks(
            kind,
            [
              ...pathAttacks(ctx),
              ...indistinguishableReads(ctx),
              ...historyAttacks(ctx),
              ...oracleReadAttacks(ctx),
              ...searchAttacks(ctx),
              ...aliasAttacks(ctx),
              ...pagingAttacks(ctx),
              ...workspaceAttacks(ctx),
              ...proposalAttacks(ctx),
              ...workspaceProposalAttacks(ctx),
            ],
            4,
          );
          const http = await ledger.runAttacks(
            kind,
            [...httpAttacks(ctx), ...pivotAttacks(ctx), ...webAttacks(ctx)],
            4,
          );
          // Structure attacks first: they rely on fixture files that later write attacks delete.
          const writes = await ledger.runAttacks(kind, [
            ...structureAttacks(ctx),
            ...editAttacks(ctx),
            ...writeAttacks(ctx),
            ...encodingAttacks(ctx),
            ...oracleWriteAttacks(ctx),
          ]);
          // Alone, after the rest: a flood must not make a neighbouring attack answer "busy".
          const resources = await ledger.runAttacks(kind, resourceAttacks(ctx));
          // Last: session floods must not race the session-hop attacks above (each floods with a key of its own anyway).
          const starve = await ledger.runAttacks(kind, sessionAttacks(ctx));
          expect({
            broken: describeFailures(broken),
            succeeded: describeFailures([...reads, ...http, ...writes, ...resources, ...starve]),
          }).toEqual({ broken: [], succeeded: [] });

          const mine = ledger.attacks.filter((a) => a.upstream === kind);
          expect(new Set(mine.map((a) => a.name)).size).toBeGreaterThanOrEqual(MIN_DISTINCT_ATTACKS);
          expect(ledger.legit.filter((u) => u.upstream === kind).length).toBeGreaterThanOrEqual(MIN_LEGIT_USES);
        },
      );
    }
  });
}
