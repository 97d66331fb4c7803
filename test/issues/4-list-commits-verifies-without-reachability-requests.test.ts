// Issue 4 (adversarial suite): on GitHub, list_commits verified each listed commit with getCommit(sha, ref), which
// re-resolved the branch and ran a compare per commit although the commit came from listing that very branch:
// a page of history over a perimeter with privacy zones cost three requests per commit (and the rate budget with it).
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createGitHubUpstream, type GitHubUpstream } from '../../src/upstream/github/index.js';
import { makeRepo, type GitDir } from '../support/gitdir.js';
import { startGitHubEmulator, type Emulator } from '../support/github-emulator/index.js';
import { startTestServer, type TestServer } from '../support/server.js';

const TOKEN = 'ghp_issue4HistoryBudgetToken0123456789abcd';
let repo: GitDir;
let emulator: Emulator;
let github: GitHubUpstream;
let srv: TestServer;

beforeAll(async () => {
  repo = await makeRepo(
    Array.from({ length: 12 }, (_, i) => ({
      message: `c${i}`,
      files: { [`app/f${i}.ts`]: `${i}\n`, ...(i % 3 === 0 ? { 'app/.env': `X=${i}\n` } : {}) },
    })),
    { bare: true },
  );
  emulator = await startGitHubEmulator({ token: TOKEN, repos: { 'acme/h': repo.dir } });
  github = createGitHubUpstream({ token: TOKEN, baseUrl: emulator.url, writeSpacingMs: 0, retryDelayMs: 5 });
  const up = github;
  srv = await startTestServer({ upstream: up, upstreamFor: () => up });
  await srv.perimeter({ id: 'app', repo: 'acme/h', read: ['app/**'], write: [] });
});

afterAll(async () => {
  await srv?.close();
  await github?.close();
  await emulator?.close();
  await repo?.cleanup();
});

it('verifies listed commits without a compare per commit', async () => {
  const a = await srv.connect('/mcp/app');
  const before = emulator.requests.length;
  const r = await a.call('list_commits', { per_page: 100 });
  expect(r.structured.commits).toHaveLength(12);
  const made = emulator.requests.slice(before);
  expect(made.filter((q) => q.path.includes('/compare/'))).toEqual([]);
  // One listing plus at most one commit read per commit (cached afterwards).
  expect(made.length).toBeLessThanOrEqual(12 + 4);
});
