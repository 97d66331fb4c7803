// Issue 23 on the stores: keys issued before agent ids become agents `key-<keyId>` on both stores (the PostgreSQL
// schema migrates), and identities and per-agent limits hold across three instances of the BUILT server (`npm run
// build` first) on one real PostgreSQL.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashKey } from '../../src/http/keys.js';
import { MIGRATIONS } from '../../src/state/postgres/migrations.js';
import { openPostgresState } from '../../src/state/postgres/index.js';
import { api, modernAgent, startInstances, stopInstances, type Instance } from '../support/cluster.js';
import { makeRepo, type GitDir } from '../support/gitdir.js';
import { postgresBin } from '../support/postgres.js';
import { sharedPostgres, type SharedPostgres } from '../support/shared-postgres.js';
import { startTestServer } from '../support/server.js';

const OLD_KEY = 'gbk_0123456789ab_an-old-key-issued-before-agent-ids-existed';
const oldPerimeter = (repo: string) => ({
  id: 'legacy',
  repo,
  read: ['**'],
  write: ['docs/**'],
  default_branch: 'main',
  branches: ['main'],
  // A key as stored before issue 23: no agent field.
  keys: [{ id: '0123456789ab', hash: hashKey(OLD_KEY), created_at: '2026-11-01T00:00:00.000Z' }],
});

describe('issue 23: keys issued before agent ids (file store)', { timeout: 60_000 }, () => {
  it('an old key keeps working and acts as agent key-<keyId>', async () => {
    const repo = await makeRepo([{ message: 'init', files: { 'docs/a.md': 'a\n' } }], { bare: true });
    const srv = await startTestServer({ openPerimeters: false });
    try {
      await srv.store.put(oldPerimeter(repo.dir));
      const agent = await srv.connect('/mcp/legacy', 'legacy', { authorization: `Bearer ${OLD_KEY}` });
      const w = await agent.call('push_files', { message: 'old', files: [{ path: 'docs/o.md', content: 'o\n' }] });
      expect(w.isError, w.text).toBeUndefined();
      expect(srv.records.at(-1)?.agent).toBe('key-0123456789ab');
      expect(await repo.git('log', '-1', '--format=%an', 'main')).toContain('key-0123456789ab@legacy via git-blinder');
      const keys = await srv.api('GET', '/api/perimeters/legacy/keys');
      expect(keys.json.keys).toEqual([expect.objectContaining({ id: '0123456789ab', agent: 'key-0123456789ab' })]);
      await agent.close();
    } finally {
      await srv.close();
      await repo.cleanup();
    }
  });
});

const havePostgres = (await postgresBin()) !== undefined;

describe.skipIf(!havePostgres)('issue 23 on PostgreSQL', { timeout: 180_000 }, () => {
  let server: SharedPostgres;
  let repo: GitDir;
  const inst: Instance[] = [];

  beforeAll(async () => {
    server = await sharedPostgres();
    repo = await makeRepo([{ message: 'init', files: { 'docs/readme.md': 'hello\n' } }], { bare: true });
  }, 120_000);
  afterAll(async () => {
    await stopInstances(inst);
    await repo?.cleanup();
    await server?.destroy();
  });

  it('migrates a store of the previous version: its keys become agents key-<keyId>, and the row stays readable by it', async () => {
    const url = await server.database('issue23_migrate');
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      // The schema as the previous version left it (every migration before this issue's), with one old key.
      await client.query(
        'CREATE TABLE gb_schema (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())',
      );
      const mine = MIGRATIONS.findIndex((m) => m.includes('gb_agent_use')) + 1;
      for (let v = 1; v < mine; v++) {
        await client.query(MIGRATIONS[v - 1] ?? '');
        await client.query('INSERT INTO gb_schema (version) VALUES ($1)', [v]);
      }
      await client.query('INSERT INTO gb_perimeters (id, body, origin) VALUES ($1, $2, $3)', [
        'legacy',
        JSON.stringify(oldPerimeter(repo.dir)),
        'runtime',
      ]);
    } finally {
      await client.end();
    }
    const opened = await openPostgresState({ url, instance: { id: 'm', version: 'test' }, log: () => undefined });
    if (!opened.ok) throw new Error(opened.message);
    const state = opened.value;
    try {
      expect(state.perimeters.get('legacy')?.keys?.[0]?.agent).toBe('key-0123456789ab');
      // A key issued now is stored with its agent in the column; the body keeps the shape the previous version reads.
      await state.perimeters.modify((draft) => {
        const p = draft.get('legacy');
        if (!p) throw new Error('missing');
        draft.set('legacy', {
          ...p,
          keys: [
            ...(p.keys ?? []),
            { id: 'abcdefabcdef', hash: hashKey('k2'), created_at: p.keys?.[0]?.created_at ?? '', agent: 'carol' },
          ],
        });
        return { ok: true, value: undefined };
      });
      const raw = new pg.Client({ connectionString: url });
      await raw.connect();
      const row = await raw.query<{ body: { keys: Record<string, unknown>[] }; agents: Record<string, string> }>(
        "SELECT body, agents FROM gb_perimeters WHERE id = 'legacy'",
      );
      await raw.end();
      expect(row.rows[0]?.agents).toEqual({ '0123456789ab': 'key-0123456789ab', abcdefabcdef: 'carol' });
      for (const k of row.rows[0]?.body.keys ?? []) expect(Object.keys(k).sort()).toEqual(['created_at', 'hash', 'id']);
    } finally {
      await state.close();
    }
  });

  it('three instances: agent ids, last use, revocation and per-agent limits are one across them', async () => {
    const store = await server.database('issue23_cluster');
    const config = join(repo.dir, '..', `gb-issue23-${Date.now()}.yaml`);
    await writeFile(
      config,
      [
        'perimeters:',
        '  docs:',
        `    repo: ${repo.dir}`,
        '    read: ["docs/**"]',
        '    write: ["docs/**"]',
        '    limits: { calls_per_minute: 100, per_agent: { calls_per_minute: 4 } }',
        '',
      ].join('\n'),
    );
    await startInstances(3, { store, config, cwd: repo.dir }, inst);
    const [i0, i1, i2] = inst as [Instance, Instance, Instance];
    const alice = (await api(i0.url, 'POST', '/perimeters/docs/keys', { agent: 'alice' })).json.key as string;
    const bob = (await api(i1.url, 'POST', '/perimeters/docs/keys', { agent: 'bob' })).json.key as string;
    // Names are unique across instances: the store decides.
    expect((await api(i2.url, 'POST', '/perimeters/docs/keys', { agent: 'alice' })).status).toBe(409);
    await new Promise((r) => setTimeout(r, 1_000));

    // alice's 4 calls a minute, spread over the three instances, are one count.
    const a = await Promise.all(inst.map((i) => modernAgent(i.url, '/mcp/docs', alice)));
    const b = await modernAgent(i2.url, '/mcp/docs', bob);
    const w = await a[1]!.call('push_files', { message: 'alice', files: [{ path: 'docs/alice.md', content: 'a\n' }] });
    expect(w.isError, w.text + (w.thrown ?? '')).toBe(false);
    expect(await repo.git('log', '-1', '--format=%an%n%(trailers:key=Agent-Id,valueonly)', 'main')).toContain(
      'alice@docs via git-blinder\nalice',
    );
    for (const x of [a[0]!, a[2]!]) expect((await x.call('list_commits', {})).isError).toBe(false);
    // initialize/list calls of the 2026 client are not tool calls; the fourth tool call is the last that fits.
    expect((await a[0]!.call('list_commits', {})).isError).toBe(false);
    const over = await a[1]!.call('list_commits', {});
    expect(over.isError).toBe(true);
    expect(over.text).toContain('this agent may make 4 calls per minute');
    expect((await b.call('list_commits', {})).isError).toBe(false);

    // Last use is recorded in the store: another instance lists it.
    const listed = await api(i0.url, 'GET', '/perimeters/docs/agents');
    const rows = listed.json.agents as { agent: string; last_used: string | null }[];
    expect(rows.map((r) => r.agent)).toEqual(['alice', 'bob']);
    for (const r of rows) expect(r.last_used).not.toBeNull();

    // Revoked on one instance, refused on every other within a second; bob goes on.
    expect((await api(i1.url, 'DELETE', '/perimeters/docs/keys/alice')).json.agent).toBe('alice');
    await new Promise((r) => setTimeout(r, 1_000));
    const gone = await a[2]!.call('list_commits', {});
    expect(gone.isError).toBe(true);
    expect(gone.thrown ?? '').toMatch(/404|Not found/i);
    expect((await b.call('list_commits', {})).isError).toBe(false);
    for (const x of [...a, b]) await x.close().catch(() => undefined);
  });
});
