// Section 2: proxy overhead. The same tool call through (a) git-blinder over HTTP, (b) a minimal MCP server on the
// same SDK and transport with no policy, (c) the upstream alone (local adapter, raw git CLI; GitHub adapter and
// raw Octokit against the emulator). Sequential calls, one client, everything in this process.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { Octokit } from '@octokit/rest';
import { bindAgent } from '../src/core/index.js';
import { invoke } from '../src/mcp/index.js';
import { toolNamed } from '../src/registry/index.js';
import { createGitHubUpstream } from '../src/upstream/github/index.js';
import { createLocalGitUpstream } from '../src/upstream/localgit/index.js';
import type { Upstream } from '../src/upstream/types.js';
import { startGitHubEmulator } from '../test/support/github-emulator/index.js';
import { startTestServer } from '../test/support/server.js';
import { connectAgent } from './clients.js';
import { selfFixture, type SelfFixture } from './fixtures.js';
import { startMinimalServer } from './minimal-server.js';
import { progress, ratio, round, summarize, timeInterleaved, type Summary } from './stats.js';

const exec = promisify(execFile);
const TOKEN = 'bench-token';

export interface Series {
  readonly tool: string;
  readonly mode: string;
  readonly summary: Summary;
}

interface Call {
  readonly tool: string;
  readonly args: Record<string, unknown>;
  readonly git: string[];
}

function calls(fx: SelfFixture): Call[] {
  return [
    { tool: 'get_file', args: { path: fx.file }, git: ['show', `main:${fx.file}`] },
    { tool: 'list_commits', args: { per_page: 50 }, git: ['log', '-50', 'main'] },
    { tool: 'get_commit', args: { sha: fx.commit }, git: ['show', '--stat', fx.commit] },
    { tool: 'get_tree', args: { recursive: true }, git: ['ls-tree', '-r', 'main'] },
  ];
}

/** The adapter call a tool makes, without anything around it. */
function adapterCall(up: Upstream, repo: string, c: Call): () => Promise<unknown> {
  const a = c.args as any;
  switch (c.tool) {
    case 'get_file':
      return () => up.readFiles(repo, 'main', [a.path]);
    case 'list_commits':
      return () => up.listCommits(repo, 'main', { paths: [''], skip: 0, limit: a.per_page });
    case 'get_commit':
      return () => up.getCommit(repo, a.sha, 'main');
    default:
      return () => up.getTree(repo, 'main', '');
  }
}

function octokitCall(o: Octokit, c: Call): () => Promise<unknown> {
  const base = { owner: 'acme', repo: 'self' };
  const a = c.args as any;
  switch (c.tool) {
    case 'get_file':
      return () => o.rest.repos.getContent({ ...base, path: a.path, ref: 'main' });
    case 'list_commits':
      return () => o.rest.repos.listCommits({ ...base, sha: 'main', per_page: 50 });
    case 'get_commit':
      return () => o.rest.repos.getCommit({ ...base, ref: a.sha });
    default:
      return () => o.rest.git.getTree({ ...base, tree_sha: 'main', recursive: 'true' });
  }
}

/**
 * The same adapter behind a memo: every read is answered from memory after its first call. Git (and its process
 * spawns, tens of ms on a loaded machine) leaves the measurement, so (a) − (b) shows the policy layer alone.
 */
function memoUpstream(up: Upstream): Upstream {
  const memo = new Map<string, Promise<unknown>>();
  const reads = new Set(['getTree', 'readFiles', 'listCommits', 'getCommit', 'defaultBranch', 'branchHead']);
  return new Proxy(up, {
    get(target, prop, receiver) {
      const v: unknown = Reflect.get(target, prop, receiver);
      if (typeof v !== 'function' || !reads.has(String(prop))) return v;
      return (...args: unknown[]) => {
        const key = `${String(prop)}:${JSON.stringify(args)}`;
        let p = memo.get(key);
        if (!p) {
          p = (v as (...a: unknown[]) => Promise<unknown>).apply(target, args);
          memo.set(key, p);
        }
        return p;
      };
    },
  });
}

/** Fails loudly when a measured call errs: a benchmark of error answers would be meaningless. */
async function checked(p: Promise<any>): Promise<void> {
  const r = await p;
  if (r && typeof r === 'object' && (r.isError || r.ok === false || (typeof r.kind === 'string' && r.kind !== 'allow')))
    throw new Error(`call failed: ${JSON.stringify(r).slice(0, 300)}`);
}

/** Runs section 2. */
export async function benchOverhead(smoke: boolean): Promise<Record<string, unknown>> {
  const n = smoke ? 20 : 1000;
  const warm = smoke ? 3 : 50;
  const budget = smoke ? 300 : 6_000;
  const fx = await selfFixture();
  const series: Series[] = [];
  const add = (tool: string, mode: string, samples: number[]) => {
    series.push({ tool, mode, summary: summarize(samples) });
    progress(`overhead ${tool} / ${mode}: median ${summarize(samples).median} ms`);
  };

  // Local upstream.
  const local = createLocalGitUpstream();
  const srv = await startTestServer({ upstream: local });
  await srv.perimeter({ id: 'bench', repo: fx.dir, read: ['**'], write: [] });
  const minimal = await startMinimalServer(local, fx.dir, 'main');
  const agentA = await connectAgent(`${srv.url}/mcp/bench`);
  const agentB = await connectAgent(`${minimal.url}/mcp`);
  const memo = memoUpstream(local);
  const srvM = await startTestServer({ upstream: memo });
  await srvM.perimeter({ id: 'bench', repo: fx.dir, read: ['**'], write: [] });
  const minimalM = await startMinimalServer(memo, fx.dir, 'main');
  const agentAM = await connectAgent(`${srvM.url}/mcp/bench`);
  const agentBM = await connectAgent(`${minimalM.url}/mcp`);
  const perimeter = srv.store.get('bench');
  const bound = perimeter ? bindAgent(perimeter, undefined) : undefined;
  if (!bound?.ok) throw new Error('no binding');
  const deps = { upstreamFor: () => local, log: () => undefined };
  for (const c of calls(fx)) {
    const tool = toolNamed(c.tool);
    if (!tool) throw new Error(c.tool);
    const got = await timeInterleaved(
      n,
      warm,
      {
        'git-blinder HTTP': () => checked(agentA.call(c.tool, c.args)),
        'minimal MCP HTTP': () => checked(agentB.call(c.tool, c.args)),
        'invoke() in-process': () => checked(invoke(tool, bound.value, c.args, deps)),
        'local adapter': () => checked(adapterCall(local, fx.dir, c)() as Promise<any>),
        'git-blinder HTTP, memo upstream': () => checked(agentAM.call(c.tool, c.args)),
        'minimal MCP HTTP, memo upstream': () => checked(agentBM.call(c.tool, c.args)),
        'git CLI spawn': () => exec('git', ['-C', fx.dir, ...c.git], { maxBuffer: 64 << 20 }),
      },
      budget * 7,
      smoke ? 3 : 20,
    );
    for (const [mode, samples] of Object.entries(got)) add(c.tool, mode, samples);
  }
  await agentAM.close();
  await agentBM.close();
  await minimalM.close();
  await srvM.close();
  await agentA.close();
  await agentB.close();
  await minimal.close();
  await srv.close();

  // GitHub emulator upstream.
  const emulator = await startGitHubEmulator({ token: TOKEN, rateLimit: { limit: 10_000_000 } });
  emulator.addRepo('acme/self', fx.dir);
  const gh = createGitHubUpstream({ token: TOKEN, baseUrl: emulator.url, writeSpacingMs: 0 });
  const ghSrv = await startTestServer({ upstream: gh });
  await ghSrv.perimeter({ id: 'bench', repo: 'acme/self', read: ['**'], write: [] });
  const agentG = await connectAgent(`${ghSrv.url}/mcp/bench`);
  const octokit = new Octokit({ auth: TOKEN, baseUrl: emulator.url });
  const ghN = smoke ? 10 : 1000;
  const ghWarm = smoke ? 2 : 20;
  for (const c of calls(fx)) {
    const got = await timeInterleaved(
      ghN,
      ghWarm,
      {
        'git-blinder HTTP (GitHub)': () => checked(agentG.call(c.tool, c.args)),
        'GitHub adapter': () => checked(adapterCall(gh, 'acme/self', c)() as Promise<any>),
        'Octokit raw': () => octokitCall(octokit, c)(),
      },
      budget * 3,
      smoke ? 3 : 20,
    );
    for (const [mode, samples] of Object.entries(got)) add(c.tool, mode, samples);
  }
  await agentG.close();
  await ghSrv.close();
  await gh.close();
  await emulator.close();

  const med = (tool: string, mode: string) =>
    series.find((s) => s.tool === tool && s.mode === mode)?.summary.median ?? NaN;
  const perTool = calls(fx).map((c) => {
    const a = med(c.tool, 'git-blinder HTTP');
    const b = med(c.tool, 'minimal MCP HTTP');
    const g = med(c.tool, 'git CLI spawn');
    return {
      tool: c.tool,
      git_command: `git ${c.git.join(' ')}`,
      policy_layer_ms: round(a - b),
      policy_layer_memo_upstream_ms: round(
        med(c.tool, 'git-blinder HTTP, memo upstream') - med(c.tool, 'minimal MCP HTTP, memo upstream'),
      ),
      policy_layer_in_process_ms: round(med(c.tool, 'invoke() in-process') - med(c.tool, 'local adapter')),
      http_vs_git_ratio: ratio(a, g),
      policy_target_met:
        med(c.tool, 'git-blinder HTTP, memo upstream') - med(c.tool, 'minimal MCP HTTP, memo upstream') < 0.3,
      git_target_met: a <= 2 * g,
    };
  });
  return {
    repository: {
      files: fx.files,
      commits: fx.commits,
      file: fx.file,
      file_bytes: fx.fileBytes,
      commit: fx.commit,
      commit_files: fx.commitFiles,
    },
    calls_per_series: {
      requested: n,
      budget_ms_per_series: budget,
      warmup: warm,
      note: 'each series stops after its time budget; n in each summary is the count made',
    },
    targets: { policy_layer_median_ms: 0.3, http_vs_git_ratio: 2 },
    per_tool: perTool,
    series,
  };
}
