// Issue 11 item 7: on GitHub, list_commits over a perimeter with privacy zones fetched every listed commit to verify
// it (30+ requests for one cold page). When no file under the history prefixes is hidden in the bound head's tree
// (one cached recursive tree read), listed commits are trusted as they are: a cold page of 30 costs ≤ 3 requests.
// When a hidden file does live under a prefix, commits are still verified one by one (the hidden-only one is cut).
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createGitHubUpstream, type GitHubUpstream } from '../../src/upstream/github/index.js';
import { makeRepo, type GitDir } from '../support/gitdir.js';
import { startGitHubEmulator, type Emulator } from '../support/github-emulator/index.js';
import { startTestServer, type TestServer } from '../support/server.js';

const TOKEN = 'ghp_issue11HistoryNoVerify0123456789abcdef';
let clean: GitDir;
let dirty: GitDir;
let emulator: Emulator;
let srv: TestServer;
const ups: GitHubUpstream[] = [];

// 40 commits under app/, a private file outside the prefix, and (in `dirty`) one commit that only touches app/.env.
const history = (withPrivate: boolean) => [
  { message: 'init', files: { 'README.md': 'r\n', '.env': 'ROOT=1\n', 'secret/k.txt': 'k\n' } },
  ...Array.from({ length: 40 }, (_, i) => ({ message: `app ${i}`, files: { [`app/f${i % 7}.ts`]: `${i}\n` } })),
  ...(withPrivate ? [{ message: 'private only', files: { 'app/.env': 'TOKEN=x\n' } }] : []),
];

beforeAll(async () => {
  clean = await makeRepo(history(false), { bare: true });
  dirty = await makeRepo(history(true), { bare: true });
  emulator = await startGitHubEmulator({ token: TOKEN, repos: { 'acme/clean': clean.dir, 'acme/dirty': dirty.dir } });
  srv = await startTestServer({
    upstreamFor: (repo) => {
      // A fresh adapter per repository: every first call is cold.
      const up = createGitHubUpstream({ token: TOKEN, baseUrl: emulator.url, writeSpacingMs: 0, retryDelayMs: 5 });
      ups.push(up);
      return repo.startsWith('acme/') ? up : undefined;
    },
  });
  await srv.perimeter({ id: 'clean', repo: 'acme/clean', read: ['app/**'], write: [] });
  await srv.perimeter({ id: 'dirty', repo: 'acme/dirty', read: ['app/**'], write: [] });
});

afterAll(async () => {
  await srv?.close();
  await Promise.all(ups.map((u) => u.close()));
  await emulator?.close();
  await clean?.cleanup();
  await dirty?.cleanup();
});

it('lists a cold page of 30 in at most 3 requests when nothing under the prefix is hidden', async () => {
  const a = await srv.connect('/mcp/clean');
  const before = emulator.requests.length;
  const r = await a.call('list_commits', { per_page: 30 });
  expect(r.isError).toBeUndefined();
  expect(r.structured.commits).toHaveLength(30);
  expect(r.structured.commits[0].message).toBe('app 39');
  const made = emulator.requests.slice(before).map((q) => `${q.status} ${q.route ?? q.path}`);
  expect(made.length, made.join('\n')).toBeLessThanOrEqual(3);
  expect(made.filter((m) => m.includes('/commits/{'))).toEqual([]);
});

it('still verifies commit by commit when a hidden file lies under the prefix at the head', async () => {
  const a = await srv.connect('/mcp/dirty');
  const before = emulator.requests.length;
  const r = await a.call('list_commits', { per_page: 30 });
  expect(r.isError).toBeUndefined();
  const messages = r.structured.commits.map((c: { message: string }) => c.message);
  expect(messages).not.toContain('private only');
  expect(messages[0]).toBe('app 39');
  expect(emulator.requests.slice(before).filter((q) => (q.route ?? '').includes('/commits/{')).length).toBeGreaterThan(
    0,
  );
});
