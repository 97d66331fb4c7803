// Issue 25, "the README's several-instances command does not work as written": with `--host 10.0.0.11
// --allowed-host gb.internal` the instance refused its own printed URLs, `/ui` and the operator CLI on that machine
// with `403 Invalid Host`. The bind address is now always an allowed Host (and its origin an allowed Origin), so the
// URLs the banner prints work; other names still need --allowed-host. Tried on loopback addresses outside 127.0.0.1.
import { request } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { guardPolicy, judgeRequest } from '../../src/http/guard.js';
import { makeRepo, type GitDir } from '../support/gitdir.js';
import { childEnv, runCli, startServer, type ServerProcess } from '../support/cli-process.js';

const OPS = 'issue25-ops-token-hosts-0123456789abcdef';
let repo: GitDir;
let tmp: string;
let srv: ServerProcess;

beforeAll(async () => {
  repo = await makeRepo([{ message: 'init', files: { 'docs/a.md': 'a\n' } }]);
  tmp = await mkdtemp(join(tmpdir(), 'gb-i25-host-'));
  srv = await startServer(['--host', '127.0.0.2', '--allowed-host', 'gb.internal', '--state-dir', join(tmp, 'state')], {
    cwd: repo.dir,
    env: childEnv({ HOME: tmp, GIT_BLINDER_OPS_TOKEN: OPS }),
  });
}, 60_000);

afterAll(async () => {
  await srv?.stop();
  await repo?.cleanup();
  await rm(tmp, { recursive: true, force: true });
});

/** One request with an explicit Host (fetch cannot set it). */
function get(url: string, host: string, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const u = new URL(url);
    const req = request({ host: u.hostname, port: u.port, path: u.pathname, headers: { host, ...headers } }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.once('error', reject);
    req.end();
  });
}

describe('serve --host 127.0.0.2 --allowed-host gb.internal', () => {
  it('prints URLs on the bind address, and every one of them answers', async () => {
    expect(srv.url).toMatch(/^http:\/\/127\.0\.0\.2:\d+$/);
    const printed = srv.output().stdout;
    const urls = [...printed.matchAll(/(http:\/\/127\.0\.0\.2:\d+\/\S*)/g)].map((m) => m[1]!);
    expect(urls.some((u) => u.endsWith('/ui'))).toBe(true);
    for (const u of urls) {
      const res = await fetch(u, { headers: { authorization: `Bearer ${OPS}` }, redirect: 'manual' });
      expect(res.status, u).not.toBe(403);
      expect(res.status, u).toBeLessThan(500);
    }
    expect((await fetch(`${srv.url}/api/health`, { headers: { authorization: `Bearer ${OPS}` } })).status).toBe(200);
  });

  it('the operator CLI on that machine works with the printed URL', async () => {
    const r = await runCli(['status', '--url', srv.url], {
      cwd: tmp,
      env: childEnv({ HOME: tmp, GIT_BLINDER_OPS_TOKEN: OPS }),
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('git-blinder');
  });

  it('the page signs in from its own origin (the bind address), not only from the allowed names', async () => {
    const port = new URL(srv.url).port;
    expect(await get(`${srv.url}/ui`, `127.0.0.2:${port}`, { origin: `http://127.0.0.2:${port}` })).not.toBe(403);
    expect(await get(`${srv.url}/ui`, `gb.internal:${port}`, { origin: `http://gb.internal:${port}` })).not.toBe(403);
  });

  it('still refuses any other Host and any foreign Origin', async () => {
    const port = new URL(srv.url).port;
    expect(await get(`${srv.url}/api/health`, `evil.example:${port}`)).toBe(403);
    expect(await get(`${srv.url}/api/health`, `localhost:${port}`)).toBe(403);
    expect(await get(`${srv.url}/ui`, `127.0.0.2:${port}`, { origin: 'http://evil.example' })).toBe(403);
  });
});

describe('guardPolicy', () => {
  const judge = (p: ReturnType<typeof guardPolicy>, host: string, origin?: string) =>
    judgeRequest(p, { url: '/api/health', host, origin, port: 7400 });
  it('admits the bind address besides the allowed names, on every kind of address', () => {
    const v4 = guardPolicy({ host: '10.0.0.11', allowedHosts: ['gb.internal'] });
    expect(judge(v4, '10.0.0.11:7400')).toEqual({ kind: 'pass' });
    expect(judge(v4, 'gb.internal:7400')).toEqual({ kind: 'pass' });
    expect(judge(v4, '10.0.0.11:7400', 'http://10.0.0.11:7400')).toEqual({ kind: 'pass' });
    expect(judge(v4, '10.0.0.12:7400')).toMatchObject({ status: 403 });
    const v6 = guardPolicy({ host: 'fd00::11', allowedHosts: ['gb.internal'] });
    expect(judge(v6, '[fd00::11]:7400')).toEqual({ kind: 'pass' });
    // Loopback plus an extra name: the loopback names stay (the CLI's default URL is http://127.0.0.1:7400).
    const lo = guardPolicy({ host: '127.0.0.1', allowedHosts: ['gb.internal'] });
    expect(judge(lo, '127.0.0.1:7400')).toEqual({ kind: 'pass' });
    expect(judge(lo, 'localhost:7400')).toEqual({ kind: 'pass' });
    expect(judge(lo, 'gb.internal:7400')).toEqual({ kind: 'pass' });
    expect(judge(lo, 'evil.example:7400')).toMatchObject({ status: 403 });
  });
});
