// Issue 15, "several instances on one PostgreSQL": three instances of the BUILT server (`npm run build` first) on one
// real database, behind a round-robin balancer without affinity. Nothing lost, nothing widened.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { runBuiltCli } from '../support/built-cli.js';
import {
  api,
  CLUSTER_OPS_TOKEN,
  modernAgent,
  roundRobin,
  startInstance,
  startInstances,
  stopInstance,
  stopInstances,
  type Instance,
} from '../support/cluster.js';
import { makeRepo, type GitDir } from '../support/gitdir.js';
import { startPostgres, type TestPostgres } from '../support/postgres.js';

let pg: TestPostgres;
let store: string;
let repo: GitDir;
let config: string;
const inst: Instance[] = [];
let key: string;

const SILENCE = 2;

beforeAll(async () => {
  pg = await startPostgres();
  store = await pg.database('issue15');
  repo = await makeRepo(
    [
      { message: 'init', files: { 'docs/readme.md': 'hello\n', 'src/secret.ts': 'hidden\n' } },
      { message: 'feat', files: { 'docs/feat.md': 'feat\n' }, branch: 'feat' },
      // Bare, as a shared server's repository is: a checked-out working tree is one process's to move (see the report).
    ],
    { bare: true },
  );
  config = join(repo.dir, '..', `gb-issue15-${Date.now()}.yaml`);
  await writeFile(
    config,
    [
      'perimeters:',
      '  docs:',
      `    repo: ${repo.dir}`,
      '    read: ["docs/**"]',
      '    write: ["docs/**"]',
      '    branches: ["feat"]',
      '  limited:',
      `    repo: ${repo.dir}`,
      '    read: ["docs/**"]',
      '    limits: { calls_per_minute: 6 }',
      '  reviewed:',
      `    repo: ${repo.dir}`,
      '    read: ["docs/**"]',
      '    write: ["docs/**"]',
      '    approval: { push_files: required }',
      '',
    ].join('\n'),
  );
  // The first migrates the schema; the others find it migrated (the lock test is in test/state).
  await startInstances(3, { store, config, cwd: repo.dir, args: ['--store-silence', String(SILENCE)] }, inst);
  const issued = await api(inst[0]!.url, 'POST', '/perimeters/docs/keys');
  expect(issued.status).toBe(201);
  key = issued.json.key;
}, 120_000);

afterAll(async () => {
  await stopInstances(inst);
  await repo?.cleanup();
  await pg?.destroy();
});

/** Connects to an instance that may not have heard of a key issued elsewhere yet: the contract is "within 1 s". */
async function agentWithin(ms: number, url: string, path: string, k: string) {
  const t0 = Date.now();
  for (;;) {
    try {
      return await modernAgent(url, path, k);
    } catch (e) {
      if (Date.now() - t0 > ms) throw e;
      await new Promise((r) => setTimeout(r, 20));
    }
  }
}

/** Polls `probe` until it reports refused; the elapsed milliseconds. */
async function refusedWithin(ms: number, probe: () => Promise<boolean>): Promise<number> {
  const t0 = Date.now();
  while (!(await probe())) {
    if (Date.now() - t0 > ms) throw new Error(`still served after ${ms} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
  return Date.now() - t0;
}

describe('three instances on one store', () => {
  it('serves 2026-era calls spread round-robin with one consistent set of perimeters', async () => {
    const lb = await roundRobin(() => inst.map((i) => i.url));
    try {
      const agent = await modernAgent(lb.url, '/mcp/docs', key);
      const answers = [];
      for (let n = 0; n < 9; n++) answers.push(await agent.call('get_file', { path: 'docs/readme.md' }));
      expect(answers.every((a) => !a.isError && a.structured.content === 'hello\n')).toBe(true);
      expect(new Set(lb.hits)).toEqual(new Set([0, 1, 2]));
      // A perimeter created through instance 2 is served by all of them at once.
      const made = await api(inst[1]!.url, 'POST', '/perimeters', {
        id: 'late',
        repo: repo.dir,
        read: ['docs/**'],
        write: [],
      });
      expect(made.status).toBe(201);
      const lateKey = (await api(inst[1]!.url, 'POST', '/perimeters/late/keys')).json.key;
      // Within a second every instance knows the new perimeter and key; from then on any of them serves it.
      for (const i of inst) await (await agentWithin(1000, i.url, '/mcp/late', lateKey)).close();
      const late = await modernAgent(lb.url, '/mcp/late', lateKey);
      for (let n = 0; n < 6; n++) expect((await late.call('get_file', { path: 'docs/readme.md' })).isError).toBe(false);
      const hidden = await late.call('get_file', { path: 'src/secret.ts' });
      expect(hidden.isError).toBe(true);
      await agent.close();
      await late.close();
    } finally {
      await lb.close();
    }
  });

  it('enforces a branch removed on instance 1 on instances 2 and 3 within 1 s', async () => {
    const probes = await Promise.all(inst.slice(1).map((i) => modernAgent(i.url, '/mcp/docs/feat', key)));
    for (const p of probes)
      expect((await p.call('get_file', { path: 'docs/feat.md' })).structured?.content).toBe('feat\n');
    const removed = await api(inst[0]!.url, 'DELETE', '/perimeters/docs/branches/feat');
    expect(removed.status).toBe(200);
    for (const p of probes) {
      const ms = await refusedWithin(1000, async () => (await p.call('get_file', { path: 'docs/feat.md' })).isError);
      expect(ms).toBeLessThan(1000);
      await p.close();
    }
  });

  it('stops a key revoked on one instance at another within 1 s', async () => {
    const second = await api(inst[1]!.url, 'POST', '/perimeters/docs/keys');
    const agent = await agentWithin(1000, inst[2]!.url, '/mcp/docs', second.json.key);
    expect((await agent.call('get_file', { path: 'docs/readme.md' })).isError).toBe(false);
    expect((await api(inst[1]!.url, 'DELETE', `/perimeters/docs/keys/${second.json.id}`)).status).toBe(200);
    const ms = await refusedWithin(
      1000,
      async () => (await agent.call('get_file', { path: 'docs/readme.md' })).isError,
    );
    expect(ms).toBeLessThan(1000);
    await agent.close();
  });

  it('holds a perimeter rate limit across instances: 6 per minute in all, not 6 each', async () => {
    const k = (await api(inst[0]!.url, 'POST', '/perimeters/limited/keys')).json.key;
    const agents = await Promise.all(inst.map((i) => agentWithin(1000, i.url, '/mcp/limited', k)));
    const out = [];
    for (let n = 0; n < 9; n++) out.push(await agents[n % 3]!.call('get_file', { path: 'docs/readme.md' }));
    expect(out.filter((r) => !r.isError)).toHaveLength(6);
    const refused = out.filter((r) => r.isError);
    expect(refused).toHaveLength(3);
    for (const r of refused) expect(r.text).toMatch(/Rate limited: this perimeter allows 6 calls per minute/);
    for (const a of agents) await a.close();
  });

  it('lands or clearly refuses each of 10 concurrent pushes to one branch through three instances; none is lost', async () => {
    const agents = await Promise.all(
      Array.from({ length: 10 }, (_, n) => modernAgent(inst[n % 3]!.url, '/mcp/docs', key)),
    );
    const results = await Promise.all(
      agents.map((a, n) =>
        a.call('push_files', { message: `push ${n}`, files: [{ path: `docs/push-${n}.md`, content: `${n}\n` }] }),
      ),
    );
    const landed: number[] = [];
    results.forEach((r, n) => {
      if (!r.isError) landed.push(n);
      else expect(r.text).toMatch(/Conflict|retry/i); // a refusal says what to do
    });
    expect(landed.length).toBeGreaterThan(0);
    for (const n of landed) expect((await repo.git('show', `main:docs/push-${n}.md`)).trim()).toBe(`${n}`);
    // Every landed commit is on main, once.
    const log = await repo.git('log', '--format=%s', 'main');
    for (const n of landed) expect(log.split('\n').filter((s) => s === `push ${n}`)).toHaveLength(1);
    for (const a of agents) await a.close();
  });

  it('loses nothing when an instance is killed mid-push', async () => {
    const doomed = await startInstance({ store, config, cwd: repo.dir, args: ['--store-silence', String(SILENCE)] });
    const before = await repo.head('main');
    const agent = await modernAgent(doomed.url, '/mcp/docs', key);
    const pending = agent.call('push_files', {
      message: 'doomed push',
      files: [{ path: 'docs/doomed.md', content: 'x\n' }],
    });
    setTimeout(() => doomed.process.child.kill('SIGKILL'), 5);
    await pending;
    await stopInstance(doomed);
    // Either the whole commit landed or nothing did; the repository is intact and the survivors serve on.
    const head = await repo.head('main');
    if (head !== before) expect((await repo.git('show', 'main:docs/doomed.md')).trim()).toBe('x');
    await repo.git('fsck', '--no-dangling');
    expect(await repo.git('merge-base', '--is-ancestor', before, 'main').then(() => true)).toBe(true);
    const survivor = await modernAgent(inst[0]!.url, '/mcp/docs', key);
    expect((await survivor.call('get_file', { path: 'docs/readme.md' })).isError).toBe(false);
    await survivor.close();
  });

  it('opens a change cursor sealed by one instance on another (one cursor key in the store)', async () => {
    const [a, b] = [
      await modernAgent(inst[0]!.url, '/mcp/docs', key),
      await modernAgent(inst[2]!.url, '/mcp/docs', key),
    ];
    const first = await a.call('changes_since', {});
    expect(first.isError).toBe(false);
    const next = await b.call('changes_since', { cursor: first.structured.cursor });
    expect(next.isError).toBe(false);
    expect(next.structured.fresh_instance).toBe(false);
    await a.close();
    await b.close();
  });

  it('holds a push made on one instance as a proposal every instance sees; approved on another, it lands once', async () => {
    const k = (await api(inst[0]!.url, 'POST', '/perimeters/reviewed/keys')).json.key;
    const agent = await agentWithin(1000, inst[1]!.url, '/mcp/reviewed', k);
    const held = await agent.call('push_files', {
      message: 'reviewed change',
      files: [{ path: 'docs/reviewed.md', content: 'ok\n' }],
    });
    expect(held.isError, held.text).toBe(false);
    const id = held.structured.proposal_id as string;
    expect(held.structured.status).toBe('pending');
    // Listed by another instance at once: proposals are read from the store, never from a copy.
    const listed = await api(inst[2]!.url, 'GET', '/proposals/' + id);
    expect(listed.status).toBe(200);
    const approved = await api(inst[2]!.url, 'POST', `/proposals/${id}/approve`, {});
    expect(approved.status, JSON.stringify(approved.json)).toBe(200);
    // A second approval elsewhere is refused, not applied twice.
    const again = await api(inst[0]!.url, 'POST', `/proposals/${id}/approve`, {});
    expect(again.status).toBe(409);
    expect((await repo.git('show', 'main:docs/reviewed.md')).trim()).toBe('ok');
    const log = await repo.git('log', '--format=%s', 'main');
    expect(log.split('\n').filter((l) => l.startsWith('reviewed change'))).toHaveLength(1);
    const seen = await (
      await agentWithin(1000, inst[0]!.url, '/mcp/reviewed', k)
    ).call('proposal_status', { proposal_id: id });
    expect(seen.structured?.status).toBe('applied');
    await agent.close();
  });

  it('answers a 2025-era session on its own instance only; another one says unknown session', async () => {
    const client = new Client({ name: 'legacy', version: '1.0.0' }, { versionNegotiation: { mode: 'legacy' } });
    const transport = new StreamableHTTPClientTransport(new URL(`${inst[0]!.url}/mcp/docs`), {
      requestInit: { headers: { authorization: `Bearer ${key}` } },
    });
    await client.connect(transport);
    const sid = transport.sessionId;
    expect(sid).toBeTruthy();
    const body = JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/list', params: {} });
    const headers = {
      authorization: `Bearer ${key}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-session-id': sid!,
      'mcp-protocol-version': '2025-06-18',
    };
    const home = await fetch(`${inst[0]!.url}/mcp/docs`, { method: 'POST', headers, body });
    expect(home.status).toBe(200);
    const away = await fetch(`${inst[1]!.url}/mcp/docs`, { method: 'POST', headers, body });
    const fake = await fetch(`${inst[1]!.url}/mcp/docs`, {
      method: 'POST',
      headers: { ...headers, 'mcp-session-id': 'no-such-session' },
      body,
    });
    expect(away.status).toBe(fake.status);
    expect(away.status).toBe(404);
    expect(await away.text()).toBe(await fake.text());
    await client.close();
  });

  it('answers who did what across all instances with one audit query; each instance chain verifies', async () => {
    const files = inst.map((i) => join(i.stateDir, 'audit', 'audit.jsonl'));
    const q = await runBuiltCli([
      'audit',
      'query',
      ...files.flatMap((f) => ['--file', f]),
      '--perimeter',
      'docs',
      '--tool',
      'get_file',
      '--json',
    ]);
    expect(q.code, q.stderr).toBe(0);
    const rows = q.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(new Set(rows.map((r) => r.ledger)).size).toBe(3); // the round-robin calls landed in every instance's chain
    const times = rows.map((r) => r.ts as string);
    expect([...times].sort()).toEqual(times);
    for (const f of files) {
      const v = await runBuiltCli(['audit', 'verify', f]);
      expect(v.code, v.stdout + v.stderr).toBe(0);
    }
  });

  it('status lists every instance alive on the store, with version and last heartbeat', async () => {
    const r = await runBuiltCli(['status', '--url', inst[0]!.url], {
      env: { GIT_BLINDER_OPS_TOKEN: CLUSTER_OPS_TOKEN },
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/store: postgres, live/);
    const rows = r.stdout.split('\n').filter((l) => /\d{4}-\d\d-\d\dT/.test(l));
    expect(rows.length).toBeGreaterThanOrEqual(3);
  });

  it('fails closed while the database is away, with a clear message, and resumes without a restart', async () => {
    const agent = await modernAgent(inst[1]!.url, '/mcp/docs', key);
    expect((await agent.call('get_file', { path: 'docs/readme.md' })).isError).toBe(false);
    await pg.stop();
    let refused;
    try {
      await new Promise((r) => setTimeout(r, SILENCE * 1000 + 1500));
      refused = await agent.call('get_file', { path: 'docs/readme.md' });
      expect(refused.isError).toBe(true);
      expect(refused.text).toMatch(/Unavailable: .*retry/);
    } finally {
      await pg.start();
    }
    const ms = await refusedWithin(
      15_000,
      async () => !(await agent.call('get_file', { path: 'docs/readme.md' })).isError,
    );
    expect(ms).toBeLessThan(15_000);
    await agent.close();
  }, 60_000);
});
