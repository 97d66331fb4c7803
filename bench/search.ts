// Issue 12 figures: search_code literal through the real server vs `git grep -F` at the same commit (local), and the
// GitHub index (emulator): cold build time and request count, warm query time. Run: npx tsx bench/search.ts [files]
import { execFile } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { promisify } from 'node:util';
import { createGitHubUpstream } from '../src/upstream/github/index.js';
import { createLocalGitUpstream } from '../src/upstream/localgit/index.js';
import { startGitHubEmulator } from '../test/support/github-emulator/index.js';
import { startTestServer } from '../test/support/server.js';
import { connectAgent } from './clients.js';
import { cachedRepo, git } from './genrepo.js';
import { round, summarize } from './stats.js';

const exec = promisify(execFile);
const files = Number(process.argv[2] ?? 50_000);
const ghFiles = Number(process.argv[3] ?? 5_000);
const QUERY = 'return x * 996';

async function times(n: number, fn: () => Promise<unknown>): Promise<number[]> {
  const t: number[] = [];
  for (let i = 0; i < n; i++) {
    const s = performance.now();
    await fn();
    t.push(round(performance.now() - s, 1));
  }
  return t;
}

const shape = (n: number) => ({
  paths: Array.from({ length: n }, (_, k) => `pkg${k % 50}/src/mod${Math.floor(k / 50) % 20}/f${k}.ts`),
  commits: 2,
});

const repo = await cachedRepo(`search-${files}`, () => shape(files));
console.log(`local repo ${files} files: ${repo.built ? `built in ${repo.ms} ms` : 'cached'}`);
const head = (await git(repo.dir, 'rev-parse', 'main')).trim();
const srv = await startTestServer({ upstream: createLocalGitUpstream() });
await srv.perimeter({ id: 'all', repo: repo.dir, read: ['**'], write: [] });
await srv.perimeter({ id: 'half', repo: repo.dir, read: ['pkg1*/**', 'pkg2*/**'], write: [] });
const all = await connectAgent(`${srv.url}/mcp/all`);
const half = await connectAgent(`${srv.url}/mcp/half`);
const first = (await all.call('search_code', { query: QUERY, case_sensitive: true, max_results: 200 })) as any;
const hits = JSON.parse(first.content[0].text).matches.length;
const blinder = await times(7, () => all.call('search_code', { query: QUERY, case_sensitive: true, max_results: 200 }));
const halfMs = await times(7, () => half.call('search_code', { query: QUERY, case_sensitive: true, max_results: 200 }));
const RARE = 'return x * 996; }\n'.slice(0, 15) + 'ZZ';
const rareBlinder = await times(7, () => all.call('search_code', { query: 'f12345(x', case_sensitive: true }));
const rareRaw = await times(7, () =>
  exec('git', ['-C', repo.dir, 'grep', '-F', '-n', '--column', '--threads=2', '-e', 'f12345(x', head], {
    maxBuffer: 256 << 20,
  }).catch(() => undefined),
);
const noneBlinder = await times(7, () => all.call('search_code', { query: RARE, case_sensitive: true }));
const noneRaw = await times(7, () =>
  exec('git', ['-C', repo.dir, 'grep', '-F', '-n', '--column', '--threads=2', '-e', RARE, head], {
    maxBuffer: 256 << 20,
  }).catch(() => undefined),
);
const raw = await times(7, () =>
  exec('git', ['-C', repo.dir, 'grep', '-F', '-n', '--column', '--threads=2', '-e', QUERY, head], {
    maxBuffer: 256 << 20,
  }),
);
const rawAll = await times(7, () =>
  exec('git', ['-C', repo.dir, 'grep', '-F', '-n', '--column', '-e', QUERY, head], { maxBuffer: 256 << 20 }),
);
console.log(
  JSON.stringify({
    local: {
      files,
      hits_first_page: hits,
      search_code_ms: summarize(blinder),
      search_code_half_scope_ms: summarize(halfMs),
      git_grep_F_2_threads_ms: summarize(raw),
      git_grep_F_default_threads_ms: summarize(rawAll),
      absent_pattern: { search_code_ms: summarize(noneBlinder), git_grep_F_ms: summarize(noneRaw) },
      rare_pattern: { search_code_ms: summarize(rareBlinder), git_grep_F_ms: summarize(rareRaw) },
    },
  }),
);
await all.close();
await half.close();
await srv.close();

const ghRepo = await cachedRepo(`search-${ghFiles}`, () => shape(ghFiles));
const token = 'ghp_BenchSearchEmulatorToken01234567890';
const emulator = await startGitHubEmulator({ token, repos: { 'acme/search': ghRepo.dir } });
const searchDir = await mkdtemp(join(tmpdir(), 'gb-search-index-'));
const gh = createGitHubUpstream({ token, baseUrl: emulator.url, searchDir, writeSpacingMs: 0, retryDelayMs: 5 });
const srv2 = await startTestServer({ upstream: gh, upstreamFor: () => gh });
// The per-call request budget would make a cold 5,000-blob build take several calls; the bench measures the build itself.
await srv2.perimeter({
  id: 'all',
  repo: 'acme/search',
  read: ['**'],
  write: [],
  limits: { upstream_requests_per_call: 100_000, upstream_requests_per_hour: 1_000_000 },
});
const agent = await connectAgent(`${srv2.url}/mcp/all`);
const r0 = gh.stats().requests;
const cold = await times(1, () => agent.call('search_code', { query: QUERY, case_sensitive: true }));
const coldRequests = gh.stats().requests - r0;
const warm = await times(9, () => agent.call('search_code', { query: QUERY, case_sensitive: true }));
const warmFolded = await times(9, () => agent.call('search_code', { query: 'RETURN X * 996' }));
const warmRegex = await times(5, () => agent.call('search_code', { query: 'return x \\* 99[0-9]', regex: true }));
console.log(
  JSON.stringify({
    github: {
      files: ghFiles,
      cold_ms: cold[0],
      cold_requests: coldRequests,
      warm_literal_ms: summarize(warm),
      warm_case_folded_ms: summarize(warmFolded),
      warm_regex_worker_ms: summarize(warmRegex),
    },
  }),
);
// A restart on the same index directory (a fresh emulator: the cold build spent its rate limit): blobs come from disk.
const emulator2 = await startGitHubEmulator({ token, repos: { 'acme/search': ghRepo.dir } });
const gh2 = createGitHubUpstream({ token, baseUrl: emulator2.url, searchDir, writeSpacingMs: 0, retryDelayMs: 5 });
const srv3 = await startTestServer({ upstream: gh2, upstreamFor: () => gh2 });
await srv3.perimeter({
  id: 'all',
  repo: 'acme/search',
  read: ['**'],
  write: [],
  limits: { upstream_requests_per_call: 100_000, upstream_requests_per_hour: 1_000_000 },
});
const agent3 = await connectAgent(`${srv3.url}/mcp/all`);
const restart = await times(1, () => agent3.call('search_code', { query: QUERY, case_sensitive: true }));
console.log(
  JSON.stringify({ github_restart: { after_restart_ms: restart[0], after_restart_requests: gh2.stats().requests } }),
);
await agent.close();
await agent3.close();
await srv2.close();
await srv3.close();
await emulator.close();
await emulator2.close();
process.exit(0);
