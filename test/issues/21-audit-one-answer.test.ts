// Issue 21 item 5, "one audit answer for all instances, from anywhere": three instances of the BUILT server (`npm run
// build` first) on three state dirs and one real PostgreSQL. Each appends to its own chained ledger and ships it to the
// store's copy afterwards; one `audit query --store` run with no state dir lists every instance's calls, `GET /api/audit`
// on any instance answers for all, `audit verify --store` finds an edit, a reorder and a deletion in the copy, and
// calls made while the database is down stay on disk and arrive once it is back.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryLedger } from '../../src/audit/index.js';
import { runBuiltCli, type CliRun } from '../support/built-cli.js';
import { api, modernAgent, startInstances, stopInstances, type Instance } from '../support/cluster.js';
import { makeRepo, type GitDir } from '../support/gitdir.js';
import { startPostgres, type TestPostgres } from '../support/postgres.js';

let db: TestPostgres;
let store: string;
let repo: GitDir;
let config: string;
let nowhere: string;
const inst: Instance[] = [];
let key: string;

beforeAll(async () => {
  db = await startPostgres();
  store = await db.database('issue21audit');
  repo = await makeRepo([{ message: 'init', files: { 'docs/readme.md': 'hello\n', 'src/secret.ts': 'hidden\n' } }], {
    bare: true,
  });
  config = join(repo.dir, '..', `gb-issue21-audit-${Date.now()}.yaml`);
  await writeFile(
    config,
    ['perimeters:', '  docs:', `    repo: ${repo.dir}`, '    read: ["docs/**"]', '    write: []', ''].join('\n'),
  );
  await startInstances(3, { store, config, cwd: repo.dir, args: ['--store-silence', '3'] }, inst);
  const issued = await api(inst[0]!.url, 'POST', '/perimeters/docs/keys');
  expect(issued.status).toBe(201);
  key = issued.json.key;
  // The reader's machine: a home and a state dir that hold nothing.
  nowhere = await mkdtemp(join(tmpdir(), 'gb-reader-'));
}, 120_000);

afterAll(async () => {
  await stopInstances(inst);
  await repo?.cleanup();
  await db?.destroy();
  if (nowhere) await rm(nowhere, { recursive: true, force: true });
});

/** The built CLI on a machine that reaches the store and nothing else (no state dir, no ledger file). */
const reader = (args: string[]): Promise<CliRun> =>
  runBuiltCli(args, {
    cwd: nowhere,
    env: { HOME: nowhere, GIT_BLINDER_STATE_DIR: join(nowhere, 'none'), GIT_BLINDER_STORE: store },
  });

const instanceName = async (i: Instance) => (await readFile(join(i.stateDir, 'audit', 'instance'), 'utf8')).trim();

/** `audit query --store --json`, parsed. */
async function storeQuery(extra: string[] = []): Promise<Record<string, any>[]> {
  const r = await reader(['audit', 'query', '--store', '--json', ...extra]);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  return r.stdout
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Record<string, any>);
}

async function until<T>(ms: number, probe: () => Promise<T | undefined>): Promise<T> {
  const t0 = Date.now();
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() - t0 > ms) throw new Error(`not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function sql<T extends pg.QueryResultRow = any>(text: string, args: unknown[] = []): Promise<T[]> {
  const c = new pg.Client({ connectionString: store });
  await c.connect();
  try {
    return (await c.query<T>(text, args)).rows;
  } finally {
    await c.end();
  }
}

/** Runs `edit` on the store's copy, then puts every row back as it was. */
async function tampered(edit: () => Promise<unknown>, check: () => Promise<void>): Promise<void> {
  const saved = await sql('SELECT * FROM gb_audit');
  try {
    await edit();
    await check();
  } finally {
    await sql('DELETE FROM gb_audit');
    for (const r of saved)
      await sql(
        'INSERT INTO gb_audit (instance, seq, ts, kind, perimeter, tool, client, verdict, line) VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9)',
        [r.instance, r.seq, r.ts, r.kind, r.perimeter, r.tool, r.client, r.verdict, r.line],
      );
  }
}

describe('one audit answer for all instances', () => {
  it('lists calls made on three instances with three state dirs in one audit query run with no state dir', async () => {
    const names = await Promise.all(inst.map(instanceName));
    expect(new Set(names).size).toBe(3);
    for (const [n, i] of inst.entries()) {
      const agent = await modernAgent(i.url, '/mcp/docs', key);
      expect((await agent.call('get_file', { path: 'docs/readme.md' })).isError).toBe(false);
      // A refusal is on the record too: the hidden file reads as missing to the agent, `invisible` in the ledger.
      expect((await agent.call('get_file', { path: 'src/secret.ts' })).isError).toBe(true);
      await agent.call('get_file', { path: `docs/none-${n}.md` });
      await agent.close();
    }
    const rows = await until(15_000, async () => {
      const got = (await storeQuery(['--perimeter', 'docs'])).filter((r) => r.tool === 'get_file');
      return new Set(got.map((r) => r.instance)).size === 3 && got.length >= 9 ? got : undefined;
    });
    expect(new Set(rows.map((r) => r.instance))).toEqual(new Set(names));
    for (const name of names) {
      const mine = rows.filter((r) => r.instance === name);
      expect(mine.map((r) => r.verdict).sort()).toEqual(['allow', 'allow', 'invisible']);
    }
    // Merged in time order, each row the entry exactly as that instance chained it.
    const times = rows.map((r) => Date.parse(r.ts));
    expect(times).toEqual([...times].sort((a, b) => a - b));
    for (const [n, i] of inst.entries()) {
      const local = [];
      for await (const e of queryLedger(join(i.stateDir, 'audit', 'audit.jsonl'), { tool: 'get_file' })) local.push(e);
      const shipped = rows.filter((r) => r.instance === names[n]).map(({ instance: _i, ...e }) => e);
      expect(shipped).toEqual(local);
    }

    // The table names the instance; `tail` keeps the newest; filters are today's (verdict here).
    const table = await reader(['audit', 'query', '--store', '--tool', 'get_file']);
    expect(table.code).toBe(0);
    expect(table.stdout.split('\n')[0]).toMatch(/^INSTANCE\s+SEQ\s+TIME/);
    for (const name of names) expect(table.stdout).toContain(name);
    const denied = await storeQuery(['--verdict', 'invisible']);
    expect(denied.length).toBeGreaterThanOrEqual(3);
    expect(denied.every((r) => r.verdict === 'invisible')).toBe(true);
    const tail = await reader(['audit', 'tail', '--store', '-n', '2', '--json']);
    expect(tail.stdout.trim().split('\n')).toHaveLength(2);

    // Any instance's /api answers for all of them.
    const answer = await api(inst[2]!.url, 'GET', '/audit?perimeter=docs&tool=get_file&limit=1000');
    expect(answer.status).toBe(200);
    expect(answer.json.source).toBe('store');
    expect(new Set(answer.json.entries.map((e: any) => e.instance))).toEqual(new Set(names));
    expect(answer.json.instances.map((i: any) => i.instance).sort()).toEqual([...names].sort());
    const few = await api(inst[0]!.url, 'GET', '/audit?limit=2');
    expect(few.json.entries).toHaveLength(2);
    expect(few.json.truncated).toBe(true);
    expect((await api(inst[0]!.url, 'GET', '/audit?verdict=maybe')).status).toBe(400);
  }, 90_000);

  it('verifies every chain from the store copy and finds an edited, a reordered and a deleted entry', async () => {
    const ok = await reader(['audit', 'verify', '--store']);
    expect(ok.stdout).toContain('audit copy verified: 3 instance(s)');
    expect(ok.code).toBe(0);

    const victim = await instanceName(inst[1]!);
    // An entry in the middle of the chain: one with entries before and after it.
    const [row] = await sql<{ seq: string }>(
      `SELECT seq FROM gb_audit WHERE instance = $1 AND kind = 'event' AND seq > 1
          AND seq < (SELECT max(seq) FROM gb_audit WHERE instance = $1) ORDER BY seq LIMIT 1`,
      [victim],
    );
    expect(row).toBeDefined();
    const seq = Number(row!.seq);

    // An edited line: its byte count changed in the line only (the hash no longer matches).
    await tampered(
      () =>
        sql(`UPDATE gb_audit SET line = replace(line, '"bytes":', '"bytes":1') WHERE instance = $1 AND seq = $2`, [
          victim,
          seq,
        ]),
      async () => {
        const r = await reader(['audit', 'verify', '--store']);
        expect(r.code).toBe(3);
        expect(r.stdout).toContain(`${victim}: FAILED: hash_mismatch: entry ${seq}`);
        expect(r.stdout).toContain('audit copy FAILED: 1 of 3 instance(s)');
      },
    );
    // An edited column: the query would be steered even though the line is intact.
    await tampered(
      () => sql("UPDATE gb_audit SET verdict = 'deny' WHERE instance = $1 AND seq = $2", [victim, seq]),
      async () => {
        const r = await reader(['audit', 'verify', '--store']);
        expect(r.code).toBe(3);
        expect(r.stdout).toContain(`${victim}: FAILED: hash_mismatch: the store's columns of entry ${seq}`);
      },
    );
    // Two entries swapped (their lines exchanged between the two places).
    await tampered(
      () =>
        sql(
          `UPDATE gb_audit a SET line = b.line FROM gb_audit b
            WHERE a.instance = $1 AND b.instance = $1 AND ((a.seq = $2 AND b.seq = $2 + 1) OR (a.seq = $2 + 1 AND b.seq = $2))`,
          [victim, seq],
        ),
      async () => {
        const r = await reader(['audit', 'verify', '--store']);
        expect(r.code).toBe(3);
        expect(r.stdout).toMatch(new RegExp(`${victim}: FAILED: \\w+`));
      },
    );
    // A deleted entry: a gap in the middle.
    await tampered(
      () => sql('DELETE FROM gb_audit WHERE instance = $1 AND seq = $2', [victim, seq]),
      async () => {
        const r = await reader(['audit', 'verify', '--store']);
        expect(r.code).toBe(3);
        expect(r.stdout).toContain(
          `${victim}: FAILED: sequence: entries ${seq}..${seq} are missing from the store's copy`,
        );
      },
    );
    // The newest entry deleted: the shipped head says it was there.
    await tampered(
      () =>
        sql('DELETE FROM gb_audit WHERE instance = $1 AND seq = (SELECT max(seq) FROM gb_audit WHERE instance = $1)', [
          victim,
        ]),
      async () => {
        const r = await reader(['audit', 'verify', '--store']);
        expect(r.code).toBe(3);
        expect(r.stdout).toMatch(
          new RegExp(`${victim}: FAILED: sequence: entries \\d+\\.\\.\\d+ are missing \\(the shipped head`),
        );
      },
    );
    const back = await reader(['audit', 'verify', '--store']);
    expect(back.code).toBe(0);
  }, 90_000);

  it('keeps entries on disk while the database is down and ships them when it is back', async () => {
    const target = inst[0]!;
    const name = await instanceName(target);
    const file = join(target.stateDir, 'audit', 'audit.jsonl');
    const lastSeq = async () => {
      let last = 0;
      for await (const e of queryLedger(file)) last = e.seq;
      return last;
    };
    // Everything so far has arrived.
    await until(10_000, async () => {
      const [h] = await sql<{ seq: string }>('SELECT seq FROM gb_audit_heads WHERE instance = $1', [name]);
      return h && Number(h.seq) >= (await lastSeq()) ? true : undefined;
    });
    const before = await lastSeq();
    const agent = await modernAgent(target.url, '/mcp/docs', key);
    await db.stop();
    let during: Awaited<ReturnType<typeof lastSeq>>;
    try {
      // Calls go on being answered (refused: the shared counters are in the store) and recorded, on this disk.
      await agent.call('get_file', { path: 'docs/readme.md' });
      await new Promise((r) => setTimeout(r, 1_500));
      await agent.call('get_file', { path: 'src/secret.ts' });
      const health = await api(target.url, 'GET', '/health');
      expect(health.json.audit.shipping.instance).toBe(name);
      expect(health.json.audit.shipping.last_error).toBeDefined();
      expect(health.json.audit.status).toBe('ok');
      expect(health.json.audit.warnings.join('\n')).toMatch(
        /shipping to the store is paused .* entries wait on this disk/,
      );
      during = await lastSeq();
      expect(during).toBeGreaterThan(before + 1);
    } finally {
      await db.start();
    }
    const local = [];
    for await (const e of queryLedger(file)) if (e.seq > before && e.seq <= during) local.push(e);
    expect(local.filter((e) => e.tool === 'get_file')).toHaveLength(2);
    // Back: what waited on disk arrives, in order, intact.
    const arrived = await until(20_000, async () => {
      const rows = (await storeQuery(['--since', new Date(Date.now() - 120_000).toISOString()])).filter(
        (r) => r.instance === name && r.seq > before && r.seq <= during,
      );
      return rows.length === local.length ? rows : undefined;
    });
    expect(arrived.map(({ instance: _i, ...e }) => e)).toEqual(local);
    await agent.close();
    const verified = await reader(['audit', 'verify', '--store']);
    expect(verified.code).toBe(0);
    const health = await api(target.url, 'GET', '/health');
    expect(health.json.audit.shipping.last_error).toBeUndefined();
  }, 90_000);

  it('takes the store URL from the environment or a file, never with its password as a flag', async () => {
    const withPassword = store.replace('gb@', 'gb:hunter2secret@');
    const r = await reader(['audit', 'query', '--store', withPassword]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--store carries a password');
    expect(r.stderr + r.stdout).not.toContain('hunter2secret');
    const missing = await runBuiltCli(['audit', 'query', '--store'], { cwd: nowhere, env: { HOME: nowhere } });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('set GIT_BLINDER_STORE');
    const urlFile = join(nowhere, 'store-url');
    await writeFile(urlFile, `${store}\n`, { mode: 0o600 });
    const viaFile = await runBuiltCli(['audit', 'verify', '--store-file', urlFile], {
      cwd: nowhere,
      env: { HOME: nowhere },
    });
    expect(viaFile.stdout).toContain('audit copy verified');
    expect(viaFile.code).toBe(0);
  }, 60_000);
});
