// Issue 21 §2, "only the owner settles its own transitions": three instances of the BUILT server (`npm run build`
// first) on one real PostgreSQL. An operator approves a proposal on instance A; while A applies it (held on the
// branch lock, which the test takes first so the apply cannot finish), the other two are restarted one by one, as a
// rolling upgrade does. Each start reconciles the proposals nobody alive is applying, and this one is A's: it must be
// left alone, so the record says applied, once, and the operator's approval answers 200, not 409.
import { realpath, rm, writeFile, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { branchLockKey } from '../../src/core/index.js';
import { BRANCH_LOCK, branchLockId } from '../../src/state/postgres/branch-lock.js';
import {
  api,
  modernAgent,
  startInstance,
  startInstances,
  stopInstance,
  stopInstances,
  type Instance,
} from '../support/cluster.js';
import { makeRepo, type GitDir } from '../support/gitdir.js';
import { sharedPostgres, type SharedPostgres } from '../support/shared-postgres.js';

let pgs: SharedPostgres;
let store: string;
let repo: GitDir;
let dir: string;
let config: string;
const inst: Instance[] = [];
const SILENCE = 2;

beforeAll(async () => {
  pgs = await sharedPostgres();
  store = await pgs.database('issue21rolling');
  repo = await makeRepo([{ message: 'init', files: { 'docs/readme.md': 'hello\n' } }], { bare: true });
  dir = await mkdtemp(join(tmpdir(), 'gb-rolling-'));
  config = join(dir, 'perimeters.yaml');
  await writeFile(
    config,
    [
      'perimeters:',
      '  reviewed:',
      `    repo: ${repo.dir}`,
      '    read: ["docs/**"]',
      '    write: ["docs/**"]',
      '    approval: { push_files: required }',
      '',
    ].join('\n'),
  );
  await startInstances(3, { store, config, cwd: repo.dir, args: ['--store-silence', String(SILENCE)] }, inst);
}, 120_000);

afterAll(async () => {
  await stopInstances(inst);
  await repo?.cleanup();
  await pgs?.destroy();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('a rolling restart during an apply', () => {
  it('leaves the apply to its instance: applied, once, and the approval answers 200', async () => {
    const k = (await api(inst[0]!.url, 'POST', '/perimeters/reviewed/keys')).json.key;
    const agent = await modernAgent(inst[0]!.url, '/mcp/reviewed', k);
    const held = await agent.call('push_files', {
      message: 'rolled change',
      files: [{ path: 'docs/rolled.md', content: 'ok\n' }],
    });
    await agent.close();
    expect(held.isError, held.text).toBe(false);
    const id = held.structured.proposal_id as string;

    // The test holds main's branch lock, so instance A's apply waits in the middle.
    const blocker = new pg.Client({ connectionString: store });
    await blocker.connect();
    const lockId = branchLockId(branchLockKey(await realpath(repo.dir), 'main'));
    await blocker.query('SELECT pg_advisory_lock($1, $2)', [BRANCH_LOCK, lockId]);
    let released = false;
    try {
      const approval = api(inst[0]!.url, 'POST', `/proposals/${id}/approve`, {});
      // A has taken it on: approved (the restore point waits for the branch) or applying.
      for (;;) {
        const s = (await api(inst[1]!.url, 'GET', `/proposals/${id}`)).json.proposal?.status;
        if (s === 'approved' || s === 'applying') break;
        expect(s).toBe('pending');
        await new Promise((r) => setTimeout(r, 25));
      }
      // Rolling restart of the other two, one at a time; each start reconciles.
      for (const n of [1, 2]) {
        await stopInstance(inst[n]!);
        inst[n] = await startInstance({ store, config, cwd: repo.dir, args: ['--store-silence', String(SILENCE)] });
        const s = (await api(inst[n]!.url, 'GET', `/proposals/${id}`)).json.proposal?.status;
        expect(['approved', 'applying']).toContain(s);
      }
      // Longer than the silence bound since the restarts began: A is alive, so still nobody else's to settle.
      await new Promise((r) => setTimeout(r, SILENCE * 1000 + 500));
      await blocker.query('SELECT pg_advisory_unlock($1, $2)', [BRANCH_LOCK, lockId]);
      released = true;
      const answer = await approval;
      expect(answer.status, JSON.stringify(answer.json)).toBe(200);
      expect(answer.json.proposal.status).toBe('applied');
      const record = (await api(inst[2]!.url, 'GET', `/proposals/${id}`)).json.proposal;
      expect(record).toMatchObject({ status: 'applied', commit: answer.json.proposal.commit });
      const log = await repo.git('log', '--format=%s', 'main');
      expect(log.split('\n').filter((l) => l.startsWith('rolled change'))).toHaveLength(1);
      // No instance logged a reconcile of it.
      for (const i of inst) expect(i.process.output().stderr).not.toMatch(/proposals reconciled at start/);
    } finally {
      if (!released) await blocker.query('SELECT pg_advisory_unlock_all()').catch(() => undefined);
      await blocker.end();
    }
  }, 120_000);
});
