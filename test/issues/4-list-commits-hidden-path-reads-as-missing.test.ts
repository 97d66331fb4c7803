// Issue 4 (adversarial suite): list_commits narrowed to an out-of-scope path answered "Not found", while a missing
// path inside the scope (and a private one) answered an empty page, so an agent could map the read scope by probing.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { makeRepo, type GitDir } from '../support/gitdir.js';
import { startTestServer, type TestServer } from '../support/server.js';

let repo: GitDir;
let srv: TestServer;

beforeAll(async () => {
  repo = await makeRepo([
    { message: 'init', files: { 'app/main.ts': '1\n', 'app/.env': 'X=1\n', 'secret/keys.txt': 'k\n' } },
    { message: 'hidden only', files: { 'secret/keys.txt': 'k2\n' } },
  ]);
  srv = await startTestServer();
  await srv.perimeter({ id: 'app', repo: repo.dir, read: ['app/**'], write: [] });
});

afterAll(async () => {
  await srv?.close();
  await repo?.cleanup();
});

it('answers list_commits on an out-of-scope, a private and a missing path with the same bytes', async () => {
  const a = await srv.connect('/mcp/app');
  const answers = [];
  for (const path of ['secret/keys.txt', 'secret', 'app/.env', 'app/nope.ts', 'nodir']) {
    const r = await a.call('list_commits', { path });
    answers.push(JSON.stringify(r).split(path).join('P'));
  }
  expect(new Set(answers).size).toBe(1);
  expect(JSON.parse(answers[0]!).structured).toEqual({ commits: [], page: 1, per_page: 30, has_more: false });
});

it('still refuses an invalid path and still lists a readable one', async () => {
  const a = await srv.connect('/mcp/app');
  expect((await a.call('list_commits', { path: '../secret' })).isError).toBe(true);
  const ok = await a.call('list_commits', { path: 'app/main.ts' });
  expect(ok.structured.commits.map((c: { message: string }) => c.message.trim())).toEqual(['init']);
});
