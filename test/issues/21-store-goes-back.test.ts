// Issue 21 §1, "a restored or failed-over database is adopted, not ignored": three instances of the BUILT server
// (`npm run build` first) on one real PostgreSQL. The database is put back to a dump taken earlier (pg_dump and
// pg_restore of the same server, into the live database, under the running instances): its revision goes down, and
// every instance must then enforce what the store holds, including a revocation made after the restore whose number
// is lower than (or equal to) the one each copy held.
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, modernAgent, startInstances, stopInstances, type Instance } from '../support/cluster.js';
import { makeRepo, type GitDir } from '../support/gitdir.js';
import { postgresBin } from '../support/postgres.js';
import { sharedPostgres, type SharedPostgres } from '../support/shared-postgres.js';

const run = promisify(execFile);

let pgs: SharedPostgres;
let store: string;
let repo: GitDir;
let config: string;
let dumps: string;
const inst: Instance[] = [];

/** The heartbeat (1 s) plus slack for a loaded machine: the bound a restored store must be adopted within. */
const BOUND_MS = 2_500;

beforeAll(async () => {
  pgs = await sharedPostgres();
  store = await pgs.database('issue21back');
  repo = await makeRepo([{ message: 'init', files: { 'docs/readme.md': 'hello\n', 'src/secret.ts': 'hidden\n' } }], {
    bare: true,
  });
  dumps = await mkdtemp(join(tmpdir(), 'gb-dump-'));
  config = join(dumps, 'perimeters.yaml');
  await writeFile(config, ['perimeters:', '  docs:', `    repo: ${repo.dir}`, '    read: ["docs/**"]', ''].join('\n'));
  await startInstances(3, { store, config, cwd: repo.dir, args: ['--store-silence', '3'] }, inst);
}, 120_000);

afterAll(async () => {
  await stopInstances(inst);
  await repo?.cleanup();
  await pgs?.destroy();
  if (dumps) await rm(dumps, { recursive: true, force: true });
});

/** pg_dump of the live database in custom format (the server's own binaries). */
async function dump(name: string): Promise<string> {
  const file = join(dumps, name);
  await run(join((await postgresBin())!, 'pg_dump'), ['-Fc', '-f', file, '-d', store]);
  return file;
}

/**
 * Puts the dump back into the live database in one transaction, the instances still connected. Their own writes
 * (heartbeats, shipped audit heads) can deadlock with the restore's DROPs; PostgreSQL then aborts the restore's one
 * transaction whole, so it is simply run again (a fresh-clone CI run saw one such deadlock).
 */
async function restore(file: string): Promise<void> {
  const args = ['--clean', '--if-exists', '--single-transaction', '-d', store, file];
  for (let attempt = 1; ; attempt++) {
    try {
      await run(join((await postgresBin())!, 'pg_restore'), args);
      return;
    } catch (err) {
      if (attempt >= 5 || !/deadlock detected/.test(String((err as { stderr?: unknown }).stderr ?? err))) throw err;
    }
  }
}

async function revision(): Promise<number> {
  const c = new pg.Client({ connectionString: store });
  await c.connect();
  try {
    return Number((await c.query<{ rev: string }>('SELECT rev FROM gb_revision')).rows[0]!.rev);
  } finally {
    await c.end();
  }
}

/** Whether `key` reads docs/readme.md on instance `i` now (a fresh client each time: a refusal may be a 401/404). */
async function reads(i: Instance, key: string): Promise<boolean> {
  try {
    const a = await modernAgent(i.url, '/mcp/docs', key);
    try {
      const r = await a.call('get_file', { path: 'docs/readme.md' });
      return !r.isError && r.structured?.content === 'hello\n';
    } finally {
      await a.close().catch(() => undefined);
    }
  } catch {
    return false;
  }
}

/** Polls every instance until each answers `want` for `key`; the slowest one's milliseconds. */
async function everywhere(key: string, want: boolean, ms = BOUND_MS): Promise<number> {
  const t0 = Date.now();
  const times = await Promise.all(
    inst.map(async (i) => {
      while ((await reads(i, key)) !== want) {
        if (Date.now() - t0 > ms) throw new Error(`${i.url} still answers ${String(!want)} after ${ms} ms`);
        await new Promise((r) => setTimeout(r, 25));
      }
      return Date.now() - t0;
    }),
  );
  return Math.max(...times);
}

const issue = async (i: Instance) => {
  const r = await api(i.url, 'POST', '/perimeters/docs/keys');
  expect(r.status).toBe(201);
  return { key: r.json.key as string, id: r.json.id as string };
};
const revoke = async (i: Instance, id: string) =>
  expect((await api(i.url, 'DELETE', `/perimeters/docs/keys/${id}`)).status).toBe(200);

describe('a store that goes back is adopted by every running instance', () => {
  it('restore of a dump taken before later changes: what the dump lacks is refused, a revocation after it enforced', async () => {
    const old = await issue(inst[0]!);
    await everywhere(old.key, true);
    const file = await dump('before.dump');
    const before = await revision();
    // Changes after the dump: the copies climb above the dump's revision.
    const later = await issue(inst[1]!);
    const spare = await issue(inst[2]!);
    await everywhere(later.key, true);
    await restore(file);
    expect(await revision()).toBe(before);
    // The restored store does not know `later`: every running instance stops serving it, as a new one would.
    await everywhere(later.key, false);
    await everywhere(spare.key, false);
    await everywhere(old.key, true);
    // A revocation on top of the restored store: its revision is below what every copy held before the restore.
    await revoke(inst[2]!, old.id);
    expect(await revision()).toBeLessThan(before + 2);
    const ms = await everywhere(old.key, false);
    expect(ms).toBeLessThan(BOUND_MS);
    // Every instance is live on the restored store, and each one said it reloaded.
    for (const i of inst) expect((await api(i.url, 'GET', '/health')).json.store.health.kind).toBe('live');
    for (const i of inst) expect(i.process.output().stderr).toMatch(/state store went back/);
  }, 60_000);

  it('failover to a copy that lags: the revision comes back to the very number a copy held, with other rows', async () => {
    const k = await issue(inst[0]!);
    await everywhere(k.key, true);
    // The lagging copy: the database as it was before a revocation.
    const lagging = await dump('lagging.dump');
    await revoke(inst[1]!, k.id);
    await everywhere(k.key, false);
    const held = await revision();
    await restore(lagging);
    // What the promoted copy holds is served again: it is the store now (an instance started now would serve it).
    await everywhere(k.key, true);
    // The operator revokes again: the revision is back at the number every copy held before, with other rows.
    await revoke(inst[2]!, k.id);
    expect(await revision()).toBe(held);
    const ms = await everywhere(k.key, false);
    expect(ms).toBeLessThan(BOUND_MS);
  }, 60_000);
});
