// Section 4: GitHub requests per agent call, counted from the emulator's request log, with the adapter's
// immutable-object cache (and the ETag store that lives in the same cache) on and off, cold and warm.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createGitHubUpstream } from '../src/upstream/github/index.js';
import { startGitHubEmulator, type Emulator } from '../test/support/github-emulator/index.js';
import { startTestServer } from '../test/support/server.js';
import { connectAgent, type AgentClient } from './clients.js';
import { buildRepo, git } from './genrepo.js';
import { progress } from './stats.js';

const TOKEN = 'bench-token';

interface Scenario {
  readonly name: string;
  readonly perimeter: 'one' | 'three' | 'all';
  readonly tool: string;
  readonly args: (ctx: { sha: string; run: number }) => Record<string, unknown>;
}

const SCENARIOS: readonly Scenario[] = [
  { name: 'list_commits, 1 prefix, 30', perimeter: 'one', tool: 'list_commits', args: () => ({ per_page: 30 }) },
  { name: 'list_commits, 1 prefix, 100', perimeter: 'one', tool: 'list_commits', args: () => ({ per_page: 100 }) },
  {
    name: 'list_commits, 3 disjoint prefixes, 30',
    perimeter: 'three',
    tool: 'list_commits',
    args: () => ({ per_page: 30 }),
  },
  { name: 'get_tree recursive, large tree', perimeter: 'all', tool: 'get_tree', args: () => ({ recursive: true }) },
  { name: 'get_tree one level', perimeter: 'all', tool: 'get_tree', args: () => ({ path: 'big' }) },
  { name: 'get_file', perimeter: 'one', tool: 'get_file', args: () => ({ path: 'a/src/f3.ts' }) },
  { name: 'get_commit', perimeter: 'one', tool: 'get_commit', args: ({ sha }) => ({ sha }) },
  {
    name: 'push_files, 10 files',
    perimeter: 'all',
    tool: 'push_files',
    args: ({ run }) => ({
      message: `bench push ${run}`,
      files: Array.from({ length: 10 }, (_, i) => ({
        path: `big/agents/r${run}/f${i}.txt`,
        content: `file ${i} run ${run}\n`,
      })),
    }),
  },
];

function layout(bigFiles: number): string[] {
  const paths: string[] = [];
  for (const top of ['a', 'b', 'c', 'd']) for (let i = 0; i < 100; i++) paths.push(`${top}/src/f${i}.ts`);
  for (let i = 0; i < bigFiles; i++) paths.push(`big/m${i % 50}/f${i}.ts`);
  return paths;
}

/** Requests the emulator saw while `fn` ran, by route. */
async function counted(
  em: Emulator,
  fn: () => Promise<any>,
): Promise<{ total: number; routes: Record<string, number>; result: any }> {
  const start = em.requests.length;
  const result = await fn();
  const seen = em.requests.slice(start);
  const routes: Record<string, number> = {};
  for (const r of seen) {
    const key = `${r.route ?? r.method + ' ' + r.path.split('?')[0]}${r.status === 304 ? ' (304)' : ''}`;
    routes[key] = (routes[key] ?? 0) + 1;
  }
  return { total: seen.length, routes, result };
}

async function session(
  em: Emulator,
  url: string,
  run: number,
  sha: string,
): Promise<Record<string, { total: number; routes: Record<string, number>; error?: string }>> {
  const agents: Record<string, AgentClient> = {};
  for (const p of ['one', 'three', 'all']) agents[p] = await connectAgent(`${url}/mcp/${p}`);
  const out: Record<string, { total: number; routes: Record<string, number>; error?: string }> = {};
  for (const s of SCENARIOS) {
    const agent = agents[s.perimeter] as AgentClient;
    const t = Date.now();
    const c = await counted(em, () => agent.call(s.tool, s.args({ sha, run })));
    progress(`upstream cost: ${s.name}: ${c.total} requests, ${Date.now() - t} ms`);
    out[s.name] = {
      total: c.total,
      routes: c.routes,
      ...(c.result?.isError ? { error: String(c.result.content?.[0]?.text).slice(0, 160) } : {}),
    };
  }
  for (const a of Object.values(agents)) await a.close();
  return out;
}

/** Runs section 4. */
export async function benchUpstreamCost(smoke: boolean): Promise<Record<string, unknown>> {
  const work = await mkdtemp(join(tmpdir(), 'gb-bench-cost-'));
  const repo = join(work, 'cost.git');
  const bigFiles = smoke ? 100 : 5_000;
  await buildRepo(repo, {
    paths: layout(bigFiles),
    commits: smoke ? 20 : 200,
    churn: (c, n) => {
      // Mostly one area per commit, a third of them in a/, so prefix streams interleave.
      const top = c % 3 === 0 ? 0 : c % 5;
      return top < 4 ? [top * 100 + (c % 100)] : [400 + ((c * 13) % (n - 400))];
    },
  });
  const emulator = await startGitHubEmulator({ token: TOKEN, rateLimit: { limit: 10_000_000 } });
  emulator.addRepo('acme/cost', repo);
  const results: Record<string, unknown> = {};
  try {
    for (const cache of ['on', 'off'] as const) {
      const gh = createGitHubUpstream({
        token: TOKEN,
        baseUrl: emulator.url,
        writeSpacingMs: 0,
        ...(cache === 'off' ? { cacheBytes: 0 } : {}),
      });
      const srv = await startTestServer({ upstream: gh });
      await srv.perimeter({ id: 'one', repo: 'acme/cost', read: ['a/**'], write: [] });
      await srv.perimeter({ id: 'three', repo: 'acme/cost', read: ['a/**', 'b/**', 'c/**'], write: [] });
      await srv.perimeter({ id: 'all', repo: 'acme/cost', read: ['**'], write: ['big/agents/**'] });
      // Picked with git, not through the adapter, so that the first session really starts cold.
      const sha = (await git(repo, 'log', '--format=%H', '-n', '1', '--skip', '5', 'main', '--', 'a')).trim();
      const before = gh.stats();
      // Three sessions: the first is cold; the later ones repeat the same calls on the same process.
      const first = await session(emulator, srv.url, cache === 'on' ? 1 : 11, sha);
      const second = await session(emulator, srv.url, cache === 'on' ? 2 : 12, sha);
      const after = gh.stats();
      results[`cache_${cache}`] = {
        cold: first,
        repeated: second,
        adapter_stats_during_sessions: {
          requests: after.requests - before.requests,
          cache_hits: after.cacheHits - before.cacheHits,
          not_modified_304: after.notModified - before.notModified,
        },
      };
      progress(`upstream cost: cache ${cache} done`);
      await srv.close();
      await gh.close();
    }
  } finally {
    await emulator.close();
    await rm(work, { recursive: true, force: true });
  }
  const on = results.cache_on as any;
  const off = results.cache_off as any;
  const table = SCENARIOS.map((s) => ({
    scenario: s.name,
    cache_on_cold: on.cold[s.name].total,
    cache_on_repeated: on.repeated[s.name].total,
    cache_off_cold: off.cold[s.name].total,
    cache_off_repeated: off.repeated[s.name].total,
  }));
  const sum = (k: 'cache_on_cold' | 'cache_on_repeated' | 'cache_off_repeated') => table.reduce((n, r) => n + r[k], 0);
  return {
    repository: { big_tree_files: bigFiles, total_files: bigFiles + 400 },
    cache_off_means:
      'cacheBytes: 0 (the ETag store lives in the same LRU, so conditional requests are off too; in-flight de-duplication stays)',
    table,
    repeated_session_total: {
      cache_on: sum('cache_on_repeated'),
      cache_on_cold: sum('cache_on_cold'),
      cache_off: sum('cache_off_repeated'),
    },
    warm_halves_requests: sum('cache_on_repeated') * 2 <= sum('cache_off_repeated'),
    details: results,
  };
}
