// Issue 10 (agents and the bridge): `stdio` without a key, or with no daemon running, printed a stack trace or a
// protocol error instead of saying what to do; stdin closing during a request printed a stack trace. The bridge runs
// as a real child process against a real server.
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { makeRepo, type GitDir } from '../support/gitdir.js';
import { startTestServer, type TestServer } from '../support/server.js';

let repo: GitDir;
let srv: TestServer;
let key: string;

beforeAll(async () => {
  repo = await makeRepo([{ message: 'init', files: { 'docs/a.md': '# A\n' } }]);
  srv = await startTestServer({ openPerimeters: false });
  await srv.perimeter({ id: 'docs', repo: repo.dir, read: ['docs/**'] });
  key = (await srv.api('POST', '/api/perimeters/docs/keys')).json.key;
});

afterAll(async () => {
  await srv?.close();
  await repo?.cleanup();
});

interface Run {
  code: number | null;
  stderr: string;
  stdout: string;
}

/** Runs `git-blinder stdio` from source; `feed` writes to its stdin and decides when to close it. */
function bridge(
  args: string[],
  env: Record<string, string>,
  feed: (write: (s: string) => void, end: () => void, stdout: () => string) => void = (_w, end) => end(),
): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'test/support/run-cli.ts', 'stdio', '--perimeter', 'docs', ...args],
      {
        env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
      },
    );
    let stderr = '';
    let stdout = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.on('close', (code) => resolve({ code, stderr, stdout }));
    feed(
      (s) => child.stdin.write(s),
      () => child.stdin.end(),
      () => stdout,
    );
  });
}

const noStack = (s: string) => expect(s).not.toMatch(/\n\s+at .+[:(]/);

it('says there is no agent key, and exits 2', { timeout: 30_000 }, async () => {
  const r = await bridge(['--url', srv.url], {}, () => undefined);
  expect(r.stderr).toContain('no agent key (set GIT_BLINDER_AGENT_KEY or --key-file)');
  expect(r.code).toBe(2);
  noStack(r.stderr);
});

it('says the daemon is not running, and exits 1', { timeout: 30_000 }, async () => {
  const port = await new Promise<number>((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const p = (s.address() as { port: number }).port;
      s.close(() => resolve(p));
    });
  });
  const url = `http://127.0.0.1:${port}`;
  const r = await bridge(['--url', url], { GIT_BLINDER_AGENT_KEY: key }, () => undefined);
  expect(r.stderr).toContain(`cannot reach git-blinder at ${url}: is \`serve\` running?`);
  expect(r.code).toBe(1);
  noStack(r.stderr);
});

it('closing stdin during a request ends quietly, with exit 0', { timeout: 30_000 }, async () => {
  const init = {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
  };
  const r = await bridge(['--url', srv.url], { GIT_BLINDER_AGENT_KEY: key }, (write, end, stdout) => {
    write(`${JSON.stringify(init)}\n`);
    const wait = setInterval(() => {
      if (!stdout().includes('"id":1')) return;
      clearInterval(wait);
      write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
      for (let i = 2; i < 12; i++)
        write(
          `${JSON.stringify({ jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: 'get_tree', arguments: { recursive: true } } })}\n`,
        );
      end();
    }, 10);
  });
  noStack(r.stderr);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
});
