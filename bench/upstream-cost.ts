// Section 4: GitHub requests per agent call, counted from the emulator's request log, with the adapter's
// immutable-object cache (and the ETag store that lives in the same cache) on and off, cold and warm. The pull-request
// tools run on a realistic PR seeded in the emulator (test/support/pull-cost.ts, shared with the issue-22 cost test)
// and are compared with the server's default `upstream_requests_per_call`.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_LIMITS } from '../src/mcp/index.js';
import { createGitHubUpstream } from '../src/upstream/github/index.js';
import { startGitHubEmulator, type Emulator } from '../test/support/github-emulator/index.js';
import { PULL_CALLS, pullCostPerimeter, seedCostPull } from '../test/support/pull-cost.js';
import { startTestServer } from '../test/support/server.js';
import { connectAgent, type AgentClient } from './clients.js';
import { buildRepo, git } from './genrepo.js';
import { progress } from './stats.js';

const TOKEN = 'bench-token';

interface Scenario {
  readonly name: string;
  readonly perimeter: 'one' | 'three' | 'all' | 'pr';
  /** The branch the session is bound to (default: none in the URL, the perimeter's default branch). */
  readonly branch?: (run: number) => string;
  readonly tool: string;
  readonly args: (ctx: { sha: string; run: number; pr: number }) => Record<string, unknown>;
}

/** Runs of the four sessions (cache on/off × cold/repeated): push_files paths and create_pull_request branches. */
const RUNS = [1, 2, 11, 12] as const;

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
  // Pull requests, last: create_pull_request opens a new PR from this run's branch; the others read the seeded PR.
  ...PULL_CALLS.map((c): Scenario => ({ name: c.name, perimeter: 'pr', branch: c.branch, tool: c.tool, args: c.args })),
];

/** The scenarios that measure the pull-request tools (compared with the per-call limit). */
const PR_SCENARIOS = new Set(PULL_CALLS.map((c) => c.name));

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
  pr: number,
): Promise<Record<string, { total: number; routes: Record<string, number>; error?: string }>> {
  // One MCP session per bound URL, opened when a scenario first needs it (before counting).
  const agents = new Map<string, AgentClient>();
  const out: Record<string, { total: number; routes: Record<string, number>; error?: string }> = {};
  for (const s of SCENARIOS) {
    const path = `/mcp/${s.perimeter}${s.branch ? `/${s.branch(run)}` : ''}`;
    let agent = agents.get(path);
    if (agent === undefined) {
      agent = await connectAgent(`${url}${path}`);
      agents.set(path, agent);
    }
    const a = agent;
    const t = Date.now();
    const c = await counted(em, () => a.call(s.tool, s.args({ sha, run, pr })));
    progress(`upstream cost: ${s.name}: ${c.total} requests, ${Date.now() - t} ms`);
    out[s.name] = {
      total: c.total,
      routes: c.routes,
      ...(c.result?.isError ? { error: String(c.result.content?.[0]?.text).slice(0, 160) } : {}),
    };
  }
  for (const a of agents.values()) await a.close();
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
  const pr = await seedCostPull(repo, emulator.pulls, 'acme/cost', RUNS);
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
      await srv.perimeter(pullCostPerimeter('pr', 'acme/cost', RUNS));
      // Picked with git, not through the adapter, so that the first session really starts cold.
      const sha = (await git(repo, 'log', '--format=%H', '-n', '1', '--skip', '5', 'main', '--', 'a')).trim();
      const before = gh.stats();
      // Three sessions: the first is cold; the later ones repeat the same calls on the same process.
      const first = await session(emulator, srv.url, cache === 'on' ? RUNS[0] : RUNS[2], sha, pr);
      const second = await session(emulator, srv.url, cache === 'on' ? RUNS[1] : RUNS[3], sha, pr);
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
  const table = SCENARIOS.filter((s) => !PR_SCENARIOS.has(s.name)).map((s) => ({
    scenario: s.name,
    cache_on_cold: on.cold[s.name].total,
    cache_on_repeated: on.repeated[s.name].total,
    cache_off_cold: off.cold[s.name].total,
    cache_off_repeated: off.repeated[s.name].total,
  }));
  const limit = DEFAULT_LIMITS.upstream_requests_per_call;
  const prTable = PULL_CALLS.map((c) => {
    const cols = [on.cold, on.repeated, off.cold, off.repeated].map((x) => x[c.name]);
    const most = Math.max(...cols.map((x) => x.total));
    const errors = cols.flatMap((x) => (x.error ? [x.error] : []));
    return {
      scenario: c.name,
      cache_on_cold: cols[0].total,
      cache_on_repeated: cols[1].total,
      cache_off_cold: cols[2].total,
      cache_off_repeated: cols[3].total,
      most,
      within_limit: most <= limit && errors.length === 0,
      ...(errors.length ? { errors } : {}),
    };
  });
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
    pull_requests: {
      seeded:
        'PR from feat-pr to main: 31 changed files in 3 commits (24 under the readable a/ and b/: modified, added, removed, a file moved; 7 under the hidden c/ and d/); reviews with 4 line comments and 2 replies (one thread on a hidden path, one review made only of it), 2 conversation comments, 2 completed check runs with 5 annotations (2 on hidden paths), 1 commit status. Perimeter `pr` reads a/** and b/**, writes a/**; each session binds to feat-pr, and create_pull_request to a fresh branch changing 2 files under a/',
      upstream_requests_per_call: limit,
      table: prTable,
      all_within_limit: prTable.every((r) => r.within_limit),
    },
    details: results,
  };
}
