// Issue 9 item 7: a flood of unauthenticated /api requests queued one fsynced ledger append each, without bound; an
// agent call made after the flood waited behind all of them (unrecorded 30 s later, lost on SIGKILL), and every entry
// carried the time of its write, not of its event. Real server, real ledger, real MCP client.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { queryLedger, verifyLedger, type LedgerEntry } from '../../src/audit/index.js';
import { loadOrCreateSalt } from '../../src/audit/salt.js';
import { openAudit, type Audit } from '../../src/cli/audit.js';
import { makeRepo, type GitDir } from '../support/gitdir.js';
import { startTestServer, type TestServer } from '../support/server.js';

const FLOOD = 3000;

let repo: GitDir;
let stateDir: string;
let audit: Audit;
let srv: TestServer;

beforeAll(async () => {
  repo = await makeRepo([{ message: 'init', files: { 'app/main.ts': 'export const main = 1;\n' } }]);
  stateDir = await mkdtemp(join(tmpdir(), 'gb-audit-flood-'));
  audit = await openAudit(
    { dir: join(stateDir, 'audit'), clearPaths: true },
    await loadOrCreateSalt(stateDir),
    () => undefined,
  );
  // The flood is about the ledger's queue, not the ops-token back-off (issue 20 §6, tested on its own): every guess is
  // still checked and refused with 401 here.
  srv = await startTestServer({
    record: audit.record,
    recordApi: audit.recordApi,
    opsBackoff: { freeFailures: Number.MAX_SAFE_INTEGER },
  });
  await srv.perimeter({ id: 'app', repo: repo.dir, read: ['app/**'] });
});

afterAll(async () => {
  await srv?.close();
  await audit?.ledger.close();
  await rm(stateDir, { recursive: true, force: true });
  await repo?.cleanup();
});

async function entries(): Promise<LedgerEntry[]> {
  const out: LedgerEntry[] = [];
  for await (const e of queryLedger(audit.ledger.state().file, {})) out.push(e);
  return out;
}

it(
  'records an agent call promptly after a flood of 401s, keeps the queue bounded and stamps events when they happen',
  { timeout: 120_000 },
  async () => {
    const agent = await srv.connect('/mcp/app');
    let sent = 0;
    let maxQueued = 0;
    await Promise.all(
      Array.from({ length: 32 }, async () => {
        while (sent < FLOOD) {
          sent += 1;
          const r = await fetch(`${srv.url}/api/perimeters`, { headers: { authorization: 'Bearer wrong' } });
          await r.text();
          expect(r.status).toBe(401);
          maxQueued = Math.max(maxQueued, audit.ledger.state().queued);
        }
      }),
    );
    const floodEnd = Date.now();

    const t0 = Date.now();
    expect((await agent.call('get_file', { path: 'app/main.ts' })).isError).toBeUndefined();
    const called = Date.now();
    // The call's entry is written within a couple of appends, whatever the flood left behind.
    let found: LedgerEntry | undefined;
    while (!found && Date.now() - t0 < 10_000) {
      found = (await entries()).find((e) => e.surface === 'agent' && e.tool === 'get_file');
      if (!found) await new Promise((r) => setTimeout(r, 20));
    }
    expect(found, 'the agent call was not recorded').toBeDefined();
    expect(Date.now() - t0).toBeLessThan(2_000);
    const ts = Date.parse(found?.ts ?? '');
    expect(ts).toBeGreaterThanOrEqual(t0 - 5);
    expect(ts).toBeLessThanOrEqual(called + 5);

    // The bulk lane never held more than its bound, and repeats from one source became counted entries.
    expect(maxQueued).toBeLessThanOrEqual(1024 + 32);
    await audit.ledger.close();
    const state = audit.ledger.state();
    const refusals = (await entries()).filter((e) => e.surface === 'api' && e.result === '401');
    expect(refusals.length).toBeLessThan(FLOOD / 2);
    expect(refusals.reduce((n, e) => n + (e.count ?? 1), 0) + state.dropped).toBe(FLOOD);
    expect(state.coalesced).toBeGreaterThan(0);
    // Each entry carries the time of its (first) request, all before the flood ended, not the time it reached the disk.
    for (const e of refusals) expect(Date.parse(e.ts)).toBeLessThanOrEqual(floodEnd);
    expect((await verifyLedger(state.file, {})).ok).toBe(true);
  },
);
