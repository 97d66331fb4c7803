// Issue 21 item 7, "budgets that are one budget": three instances of the BUILT server (`npm run build` first) on one
// real PostgreSQL. A perimeter's hourly share of upstream requests is one share whatever the number of instances (it
// was counted per process: N instances, N× the share); and a local repository registered on one instance after the
// others started is listed by every instance (each listed only what it knew at start or had opened itself).
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, modernAgent, startInstances, stopInstances, type Instance } from '../support/cluster.js';
import { makeRepo, type GitDir } from '../support/gitdir.js';
import { startGitHubEmulator, type Emulator } from '../support/github-emulator/index.js';
import { sharedPostgres, type SharedPostgres } from '../support/shared-postgres.js';

const TOKEN = 'ghp_issue21OneBudget0123456789abcdefghijk';
const SHARE = 10;
const FILES = 40;

let pg: SharedPostgres;
let store: string;
let bare: GitDir;
let late: GitDir;
let emulator: Emulator;
let config: string;
const inst: Instance[] = [];

beforeAll(async () => {
  pg = await sharedPostgres();
  store = await pg.database('issue21budget');
  const files: Record<string, string> = {};
  for (let i = 0; i < FILES; i++) files[`docs/f${i}.md`] = `file ${i}\n`;
  bare = await makeRepo([{ message: 'init', files }], { bare: true });
  late = await makeRepo([{ message: 'init', files: { 'notes/a.md': 'late\n' } }], { bare: true });
  emulator = await startGitHubEmulator({ token: TOKEN, repos: { 'acme/docs': bare.dir } });
  const dir = join(bare.dir, '..', `gb-issue21-${Date.now()}`);
  await mkdir(dir, { recursive: true });
  config = join(dir, 'config.yaml');
  await writeFile(
    config,
    [
      'perimeters:',
      '  shared:',
      '    repo: acme/docs',
      '    read: ["docs/**"]',
      `    limits: { upstream_requests_per_hour: ${SHARE} }`,
      '',
    ].join('\n'),
  );
  await startInstances(
    3,
    {
      store,
      config,
      cwd: dir,
      args: ['--github-url', emulator.url],
      env: { GITHUB_TOKEN: TOKEN },
    },
    inst,
  );
}, 180_000);

afterAll(async () => {
  await stopInstances(inst);
  await emulator?.close();
  await bare?.cleanup();
  await late?.cleanup();
  await pg?.destroy();
});

describe('upstream_requests_per_hour', () => {
  it('is one share for all instances: once spent through any of them, every instance refuses without a request', async () => {
    const issued = await api(inst[0]!.url, 'POST', '/perimeters/shared/keys');
    expect(issued.status).toBe(201);
    const agents = await Promise.all(inst.map((i) => modernAgent(i.url, '/mcp/shared', issued.json.key)));
    try {
      const before = emulator.requests.length;
      const refusedOn = new Set<number>();
      // Every call reads a file no instance has read yet, so each costs at least one request where it runs.
      for (let n = 0; n < FILES; n++) {
        const i = n % agents.length;
        const r = await agents[i]!.call('get_file', { path: `docs/f${n}.md` });
        if (r.isError) {
          expect(r.text).toMatch(
            new RegExp(
              `This perimeter's share of upstream requests \\(${SHARE} per hour\\) is spent; retry after \\d+ s\\.`,
            ),
          );
          refusedOn.add(i);
        }
      }
      // Counted per instance, three instances would have sent up to three shares.
      expect(emulator.requests.length - before).toBeLessThanOrEqual(SHARE);
      expect([...refusedOn].sort()).toEqual([0, 1, 2]);
      // Spent: nothing more is sent, whichever instance is asked.
      const spent = emulator.requests.length;
      for (const a of agents) expect((await a.call('get_file', { path: 'docs/f0.md' })).isError).toBe(true);
      expect(emulator.requests.length).toBe(spent);
    } finally {
      for (const a of agents) await a.close().catch(() => undefined);
    }
  }, 120_000);
});

describe('a local repository registered after start', () => {
  it('is listed and served by every instance, not only the one that registered it', async () => {
    for (const i of inst) {
      const before = await api(i.url, 'GET', '/repos');
      expect(before.status).toBe(200);
      expect(before.json.repos.map((r: { name: string }) => r.name)).not.toContain(late.dir);
    }
    const made = await api(inst[1]!.url, 'POST', '/perimeters', { id: 'late', repo: late.dir, read: ['notes/**'] });
    expect(made.status).toBe(201);
    const key = await api(inst[1]!.url, 'POST', '/perimeters/late/keys');
    expect(key.status).toBe(201);
    // Other instances hear of the perimeter within the store's refresh (a second); then they serve it like its maker.
    for (const i of inst) {
      const until = Date.now() + 5000;
      let names: string[] = [];
      while (Date.now() < until) {
        const listed = await api(i.url, 'GET', '/repos');
        names = listed.json.repos.map((r: { name: string }) => r.name);
        if (names.includes(late.dir)) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(names).toContain(late.dir);
      const agent = await modernAgent(i.url, '/mcp/late', key.json.key);
      try {
        const read = await agent.call('get_file', { path: 'notes/a.md' });
        expect(read.isError).toBe(false);
        expect(read.structured.content).toBe('late\n');
      } finally {
        await agent.close();
      }
    }
    // Deleted through one instance, it leaves every instance's list.
    expect((await api(inst[2]!.url, 'DELETE', '/perimeters/late')).status).toBeLessThan(300);
    for (const i of inst) {
      const until = Date.now() + 5000;
      let names: string[] = [late.dir];
      while (Date.now() < until && names.includes(late.dir)) {
        names = (await api(i.url, 'GET', '/repos')).json.repos.map((r: { name: string }) => r.name);
        if (names.includes(late.dir)) await new Promise((r) => setTimeout(r, 100));
      }
      expect(names).not.toContain(late.dir);
    }
  }, 120_000);
});
