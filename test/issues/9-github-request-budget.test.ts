// Issue 9 item 5(c): one list_commits (page 1000, per_page 100) over a perimeter with privacy zones verified ~5,000
// commits one by one and spent the token's hourly budget for every perimeter. Now: a page deeper than one scan is
// refused before any request; every agent call may make at most `upstream_requests_per_call` GitHub requests (then
// a clear error, nothing more sent); and each perimeter has an hourly share (`upstream_requests_per_hour`) counted
// request by request, which another perimeter's spending does not touch.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { RateLimiter } from '../../src/mcp/index.js';
import { createGitHubUpstream, type GitHubUpstream } from '../../src/upstream/github/index.js';
import { makeRepo, type GitDir } from '../support/gitdir.js';
import { startGitHubEmulator, type Emulator } from '../support/github-emulator/index.js';
import { startTestServer, type TestServer } from '../support/server.js';

const TOKEN = 'ghp_issue9RequestBudget0123456789abcdefghi';
let repo: GitDir;
let emulator: Emulator;
let github: GitHubUpstream;
let srv: TestServer;

beforeAll(async () => {
  // A private file under the prefix at the head: every listed commit needs a commit read to be verified.
  repo = await makeRepo(
    [
      {
        message: 'init',
        files: {
          'app/.env': 'X=1\n',
          'docs/a.md': 'a\n',
          'docs/b.md': 'b\n',
          'docs/c.md': 'c\n',
          'docs/d.md': 'd\n',
          'docs/e.md': 'e\n',
        },
      },
      ...Array.from({ length: 30 }, (_, i) => ({ message: `c${i}`, files: { [`app/f${i}.ts`]: `${i}\n` } })),
    ],
    { bare: true },
  );
  emulator = await startGitHubEmulator({ token: TOKEN, repos: { 'acme/b': repo.dir } });
  github = createGitHubUpstream({ token: TOKEN, baseUrl: emulator.url, writeSpacingMs: 0, retryDelayMs: 5 });
  const gh = github;
  srv = await startTestServer({ upstream: gh, upstreamFor: () => gh, limiter: new RateLimiter() });
  await srv.perimeter({
    id: 'percall',
    repo: 'acme/b',
    read: ['app/**'],
    write: [],
    limits: { upstream_requests_per_call: 5 },
  });
  await srv.perimeter({
    id: 'hourly',
    repo: 'acme/b',
    read: ['docs/**'],
    write: [],
    limits: { upstream_requests_per_hour: 4 },
  });
  await srv.perimeter({ id: 'other', repo: 'acme/b', read: ['docs/**'], write: [] });
});

afterAll(async () => {
  await srv?.close();
  await github?.close();
  await emulator?.close();
  await repo?.cleanup();
});

it('refuses a page deeper than one scan without a single request', async () => {
  const a = await srv.connect('/mcp/percall');
  const before = emulator.requests.length;
  const r = await a.call('list_commits', { page: 1000, per_page: 100 });
  expect(r.isError).toBe(true);
  expect(r.text).toContain('at most 5000 commits deep');
  expect(emulator.requests.length).toBe(before);
});

it('stops a call at its per-call request budget with a clear error', async () => {
  const a = await srv.connect('/mcp/percall');
  const before = emulator.requests.length;
  const r = await a.call('list_commits', { per_page: 30 });
  expect(r.isError).toBe(true);
  expect(r.text).toContain("more than 5 upstream requests, this perimeter's limit per call");
  expect(emulator.requests.length - before).toBeLessThanOrEqual(5);
});

it("spends only the perimeter's own hourly share", async () => {
  const a = await srv.connect('/mcp/hourly');
  const texts: string[] = [];
  for (const f of ['a', 'b', 'c', 'd', 'e']) {
    const r = await a.call('get_file', { path: `docs/${f}.md` });
    texts.push(r.isError ? r.text : 'ok');
    if (r.isError) break;
  }
  // Each read downloads a new blob (one request at least): the share (4) runs out by the fifth. 304s are free on GitHub and not counted.
  expect(texts[0]).toBe('ok');
  expect(texts.at(-1)).toMatch(
    /^This perimeter's share of upstream requests \(4 per hour\) is spent; retry after \d+ s\.$/,
  );
  const before = emulator.requests.length;
  expect((await a.call('get_tree', { path: 'docs' })).isError).toBe(true);
  expect(emulator.requests.length).toBe(before);
  // Another perimeter on the same token is untouched.
  const b = await srv.connect('/mcp/other');
  expect((await b.call('get_file', { path: 'docs/a.md' })).structured.content).toBe('a\n');
});
