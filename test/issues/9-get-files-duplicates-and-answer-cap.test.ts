// Issue 9 item 5(b): get_files with the same 1 MB path 100 times built a 200 MB answer, and the GitHub adapter read
// any blob whatever its size. Now repeats are answered once; no answer carries more than the perimeter's answer cap
// (default 1 MiB) of content — a file over it is refused by name (`over_cap: "file"`), files after a full answer are
// left out by name (`over_cap: "answer"`), never cut; the cut never depends on hidden files; and GitHub refuses an
// over-cap blob from its tree size without downloading it. Both upstreams.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGitHubUpstream, type GitHubUpstream } from '../../src/upstream/github/index.js';
import { gitIn, makeRepo, type GitDir } from '../support/gitdir.js';
import { startGitHubEmulator, type Emulator } from '../support/github-emulator/index.js';
import { startTestServer, type TestServer } from '../support/server.js';

const TOKEN = 'ghp_issue9AnswerCapToken0123456789abcdefgh';
const KB = 1024;
const big = 'b'.repeat(1100 * KB); // over the default 1 MiB cap
const mid = (c: string) => c.repeat(200 * KB); // three of these do not fit in one answer (half the cap holds content)

let repo: GitDir;
let emulator: Emulator;
let github: GitHubUpstream;
const servers: Record<'local' | 'github', TestServer> = {} as never;

beforeAll(async () => {
  repo = await makeRepo(
    [
      {
        message: 'init',
        files: {
          'app/big.txt': big,
          'app/m1.txt': mid('1'),
          'app/m2.txt': mid('2'),
          'app/m3.txt': mid('3'),
          'app/small.txt': 's\n',
          'secret/huge.txt': big,
        },
      },
    ],
    { bare: true },
  );
  emulator = await startGitHubEmulator({ token: TOKEN, repos: { 'acme/cap': repo.dir } });
  github = createGitHubUpstream({ token: TOKEN, baseUrl: emulator.url, writeSpacingMs: 0, retryDelayMs: 5 });
  const gh = github;
  servers.local = await startTestServer();
  servers.github = await startTestServer({ upstream: gh, upstreamFor: () => gh });
  for (const [kind, srv] of Object.entries(servers)) {
    const repoName = kind === 'local' ? repo.dir : 'acme/cap';
    await srv.perimeter({ id: 'app', repo: repoName, read: ['app/**'], write: [] });
    await srv.perimeter({
      id: 'tight',
      repo: repoName,
      read: ['app/**'],
      write: [],
      limits: { max_answer_bytes: 2 * KB },
    });
  }
});

afterAll(async () => {
  await Promise.all(Object.values(servers).map((s) => s.close()));
  await github?.close();
  await emulator?.close();
  await repo?.cleanup();
});

describe.each(['local', 'github'] as const)('%s upstream', (kind) => {
  it('answers a path repeated 100 times once, within the cap', async () => {
    const a = await servers[kind].connect('/mcp/app');
    const r = await a.call('get_files', { paths: Array.from({ length: 100 }, () => 'app/m1.txt') });
    expect(r.isError).toBeUndefined();
    expect(r.structured.files).toHaveLength(1);
    expect(r.structured.files[0]).toMatchObject({ ok: true, path: 'app/m1.txt', size: 200 * KB });
    expect(Buffer.byteLength(r.text)).toBeLessThan(1024 * KB);
  });

  it('refuses a file over the cap by name, never a cut copy', async () => {
    const a = await servers[kind].connect('/mcp/app');
    const r = await a.call('get_files', { paths: ['app/big.txt', 'app/small.txt'] });
    expect(r.structured.files[0]).toMatchObject({ ok: false, path: 'app/big.txt', over_cap: 'file' });
    expect(r.structured.files[0].error).toContain('1048576-byte answer cap');
    expect(r.structured.files[1]).toMatchObject({ ok: true, content: 's\n' });
    const one = await a.call('get_file', { path: 'app/big.txt' });
    expect(one.isError).toBe(true);
    expect(one.text).toContain(`is ${1100 * KB} bytes, over this perimeter's 1048576-byte answer cap`);
  });

  it('leaves out, by name, the files after the answer is full', async () => {
    const a = await servers[kind].connect('/mcp/app');
    const r = await a.call('get_files', { paths: ['app/m1.txt', 'app/m2.txt', 'app/m3.txt', 'app/small.txt'] });
    const files = r.structured.files as { ok: boolean; path: string; over_cap?: string }[];
    expect(files.map((f) => [f.path, f.ok, f.over_cap])).toEqual([
      ['app/m1.txt', true, undefined],
      ['app/m2.txt', true, undefined],
      ['app/m3.txt', false, 'answer'],
      ['app/small.txt', true, undefined],
    ]);
    expect(r.structured.found).toBe(3);
  });

  it('cuts the same whether a hidden big file or a missing one is asked first', async () => {
    const a = await servers[kind].connect('/mcp/app');
    const rest = ['app/m1.txt', 'app/m2.txt', 'app/m3.txt'];
    const hidden = await a.call('get_files', { paths: ['secret/huge.txt', ...rest] });
    const missing = await a.call('get_files', { paths: ['secret/nope.txt', ...rest] });
    expect(hidden.text.replaceAll('secret/huge.txt', 'X')).toBe(missing.text.replaceAll('secret/nope.txt', 'X'));
  });

  it("honours the perimeter's own max_answer_bytes", async () => {
    const a = await servers[kind].connect('/mcp/tight');
    const r = await a.call('get_file', { path: 'app/m1.txt' });
    expect(r.isError).toBe(true);
    expect(r.text).toContain('2048-byte answer cap');
    const tree = await a.call('get_tree', { path: 'app' });
    expect(tree.isError).toBeUndefined();
  });
});

it('GitHub: an over-cap blob is refused from the tree size, never downloaded', async () => {
  const a = await servers.github.connect('/mcp/app');
  const before = emulator.requests.length;
  const r = await a.call('get_files', { paths: ['app/big.txt'] });
  expect(r.structured.files[0]).toMatchObject({ ok: false, over_cap: 'file' });
  expect(emulator.requests.slice(before).filter((q) => (q.route ?? q.path).includes('/git/blobs/'))).toEqual([]);
});

it('GitHub: a file left out because the answer is full is not downloaded either', async () => {
  const a = await servers.github.connect('/mcp/app');
  const m3 = (await gitIn(repo.dir, ['rev-parse', 'main:app/m3.txt'])).trim();
  const r = await a.call('get_files', { paths: ['app/m1.txt', 'app/m2.txt', 'app/m3.txt'] });
  expect(r.structured.files[2]).toMatchObject({ ok: false, path: 'app/m3.txt', over_cap: 'answer' });
  expect(emulator.requests.filter((q) => q.path.includes(`/git/blobs/${m3}`))).toEqual([]);
});
