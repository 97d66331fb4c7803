// Issue 21 §3, "time on shared records is the store's time": two in-process instances on one real PostgreSQL, each
// with the real proposal service over the PostgreSQL store and a real local git upstream; one instance's clock runs a
// day ahead (the service's `now`, the clock seam it has always had). Proposals are stamped and expired on the
// database's clock, so nothing expires early and what expires still does.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { materialize, type Proposal } from '../../src/core/index.js';
import { proposalApplier } from '../../src/mcp/proposal-apply.js';
import { proposalService, type ProposalService } from '../../src/registry/proposals.js';
import { openPostgresState } from '../../src/state/postgres/index.js';
import type { SharedState } from '../../src/state/types.js';
import { createLocalGitUpstream } from '../../src/upstream/localgit/index.js';
import type { Upstream } from '../../src/upstream/types.js';
import { makeRepo, type GitDir } from '../support/gitdir.js';
import { sharedPostgres, type SharedPostgres } from '../support/shared-postgres.js';

const DAY = 24 * 60 * 60 * 1000;
const TTL = 3_000;

let pgs: SharedPostgres;
let repo: GitDir;
let upstream: Upstream;
const states: SharedState[] = [];
let onTime: ProposalService;
let ahead: ProposalService;

/** One instance: its own connection pool and heartbeat on the shared database, its own clock. */
async function instance(id: string, now: () => number, url: string): Promise<ProposalService> {
  const opened = await openPostgresState({ url, instance: { id, version: 'test' }, log: () => undefined });
  if (!opened.ok) throw new Error(opened.message);
  const state = opened.value;
  states.push(state);
  return proposalService({
    store: state.proposals,
    perimeter: (p) => state.perimeters.get(p),
    ...proposalApplier({ upstreamFor: () => upstream, log: () => undefined }),
    audit: () => undefined,
    ttlMs: TTL,
    now,
  });
}

beforeAll(async () => {
  pgs = await sharedPostgres();
  const url = await pgs.database('issue21clock');
  repo = await makeRepo([{ message: 'init', files: { 'docs/readme.md': 'hello\n' } }], { bare: true });
  upstream = createLocalGitUpstream({ repos: [repo.dir] });
  onTime = await instance('on-time', Date.now, url);
  ahead = await instance('ahead', () => Date.now() + DAY, url);
  await states[0]!.perimeters.put(
    materialize({ id: 'docs', repo: repo.dir, read: ['docs/**'], write: ['docs/**'] }, 'main'),
  );
  // The other instance hears of it (NOTIFY, or its next heartbeat).
  while (states[1]!.perimeters.get('docs') === undefined) await new Promise((r) => setTimeout(r, 20));
}, 60_000);

afterAll(async () => {
  for (const s of states) await s.close();
  await upstream?.close();
  await repo?.cleanup();
  await pgs?.destroy();
});

async function propose(svc: ProposalService, path: string): Promise<Proposal> {
  const r = await svc.create({
    perimeter: 'docs',
    repo: repo.dir,
    branch: 'main',
    base: await repo.head('main'),
    agent: 'test',
    change: {
      kind: 'push_files',
      message: `set ${path}`,
      files: [{ path, content: 'x\n', encoding: 'utf-8' }],
      deletes: [],
    },
    facts: { paths: [path], protected_paths: [] },
  });
  if (!r.ok) throw new Error(r.message);
  return r.value;
}

describe('a clock a day ahead on one instance', () => {
  it('expires nothing early: not what others proposed, not what it proposed itself', async () => {
    const t0 = Date.now();
    const mine = await propose(onTime, 'docs/a.md');
    const its = await propose(ahead, 'docs/b.md');
    // Stamped on the database's clock, not the instance's.
    for (const p of [mine, its]) {
      expect(Math.abs(Date.parse(p.created_at) - t0)).toBeLessThan(2_000);
      expect(Date.parse(p.expires_at) - Date.parse(p.created_at)).toBe(TTL);
    }
    // The sweep and the reads of the instance ahead leave both pending.
    expect(await ahead.expire()).toBe(0);
    expect((await ahead.list({ status: 'pending' })).map((p) => p.id).sort()).toEqual([mine.id, its.id].sort());
    // An approval through it is an approval, not "expired before anyone approved it".
    const approved = await ahead.approve(mine.id, 'operator');
    expect(approved.ok && approved.value.status).toBe('applied');
  });

  it('still expires on time: once the database clock passes expires_at, any instance expires it', async () => {
    const p = await propose(ahead, 'docs/c.md');
    expect(await onTime.expire()).toBe(0);
    await new Promise((r) => setTimeout(r, Date.parse(p.expires_at) - Date.now() + 300));
    // The first test's docs/b.md is as old: it goes too.
    expect(await onTime.expire()).toBe(2);
    expect((await ahead.get(p.id))?.status).toBe('expired');
  });
});
