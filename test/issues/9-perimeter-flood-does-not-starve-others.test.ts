// Issue 9 item 5(b): 40 heavy get_files calls from one key took the process's memory and stalled every other
// perimeter. Each perimeter's calls now run in their own lane (`concurrent_calls`, a bounded `queued_calls` queue,
// then a "Busy, retry" answer), so another perimeter's call is answered while the flood is still being worked off.
// The assertion is on completion order, not on a time threshold. Both upstreams.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Gate } from '../../src/mcp/index.js';
import { createGitHubUpstream, type GitHubUpstream } from '../../src/upstream/github/index.js';
import { makeRepo, type GitDir } from '../support/gitdir.js';
import { startGitHubEmulator, type Emulator } from '../support/github-emulator/index.js';
import { startTestServer, type TestServer } from '../support/server.js';

const TOKEN = 'ghp_issue9FloodLanesToken0123456789abcdefg';
const FLOOD = 16;
let repo: GitDir;
let emulator: Emulator;
let github: GitHubUpstream;
const servers: Record<'local' | 'github', TestServer> = {} as never;

beforeAll(async () => {
  const files = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`app/f${i}.txt`, `${i}`.repeat(20_000)]));
  repo = await makeRepo([{ message: 'init', files: { ...files, 'docs/a.md': 'a\n' } }], { bare: true });
  emulator = await startGitHubEmulator({ token: TOKEN, repos: { 'acme/flood': repo.dir } });
  github = createGitHubUpstream({ token: TOKEN, baseUrl: emulator.url, writeSpacingMs: 0, retryDelayMs: 5 });
  const gh = github;
  servers.local = await startTestServer({ gate: new Gate() });
  servers.github = await startTestServer({ upstream: gh, upstreamFor: () => gh, gate: new Gate() });
  for (const [kind, srv] of Object.entries(servers)) {
    const name = kind === 'local' ? repo.dir : 'acme/flood';
    await srv.perimeter({
      id: 'noisy',
      repo: name,
      read: ['app/**'],
      write: [],
      limits: { concurrent_calls: 1, queued_calls: 4 },
    });
    await srv.perimeter({ id: 'quiet', repo: name, read: ['docs/**'], write: [] });
  }
});

afterAll(async () => {
  await Promise.all(Object.values(servers).map((s) => s.close()));
  await github?.close();
  await emulator?.close();
  await repo?.cleanup();
});

describe.each(['local', 'github'] as const)('%s upstream', (kind) => {
  it("answers another perimeter while one perimeter's flood waits in its own lane", async () => {
    const noisy = await servers[kind].connect('/mcp/noisy');
    const quiet = await servers[kind].connect('/mcp/quiet');
    const paths = Array.from({ length: 20 }, (_, i) => `app/f${i}.txt`);
    const done: string[] = [];
    const flood = Array.from({ length: FLOOD }, (_, i) =>
      noisy.call('get_files', { paths }).then((r) => {
        done.push(`noisy:${i}`);
        return r;
      }),
    );
    // Give the flood a head start: its calls are in flight or queued when the quiet perimeter asks.
    await new Promise((r) => setTimeout(r, 20));
    const q = await quiet.call('get_file', { path: 'docs/a.md' });
    done.push('quiet');
    const answers = await Promise.all(flood);
    expect(q.structured.content).toBe('a\n');
    // Beyond one running and four queued, the flood is told to retry instead of piling up.
    const busy = answers.filter((r) => r.isError && r.text.startsWith('Busy:'));
    const served = answers.filter((r) => !r.isError);
    expect(busy.length).toBeGreaterThan(0);
    expect(served.length).toBeGreaterThan(0);
    expect(served.length).toBeLessThanOrEqual(FLOOD - busy.length);
    expect(busy[0]?.text).toBe(
      "Busy: this perimeter's calls are at their limit (1 running, 4 waiting); retry in a moment.",
    );
    // The quiet perimeter did not wait for the noisy lane to drain.
    const lastServed = Math.max(...answers.map((r, i) => (r.isError ? -1 : done.indexOf(`noisy:${i}`))));
    expect(done.indexOf('quiet')).toBeLessThan(lastServed);
    // The lane is free again once the flood is answered.
    expect((await noisy.call('get_file', { path: 'app/f0.txt' })).isError).toBeUndefined();
  });
});
