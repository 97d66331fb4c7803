// Issue 9 item 5(a): 2025-era sessions shared one global cap, so one key opening ~1000 sessions made every other
// perimeter, and the operator, answer 503; held GET streams kept its sessions from ever being reaped.
// Real server, real MCP clients, raw initializes for the flood.
import { request as httpRequest, type ClientRequest } from 'node:http';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { makeRepo, type GitDir } from '../support/gitdir.js';
import { OPS_TOKEN, startTestServer, type TestServer } from '../support/server.js';

const INIT = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'flood', version: '1' } },
});
const INITIALIZED = JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' });
const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

let repo: GitDir;
let srv: TestServer | undefined;

beforeAll(async () => {
  repo = await makeRepo([{ message: 'init', files: { 'app/main.ts': '1\n', 'infra/main.tf': '2\n' } }]);
});
afterEach(async () => {
  await srv?.close();
  srv = undefined;
});
afterAll(async () => {
  await repo?.cleanup();
});

async function serverWithKeys(
  opts: Parameters<typeof startTestServer>[0] = {},
): Promise<{ s: TestServer; app1: string; app2: string; infra: string }> {
  const s = await startTestServer({ openPerimeters: false, ...opts });
  srv = s;
  await s.perimeter({ id: 'app', repo: repo.dir, read: ['app/**'] });
  await s.perimeter({ id: 'infra', repo: repo.dir, read: ['infra/**'] });
  const key = async (id: string) => (await s.api('POST', `/api/perimeters/${id}/keys`)).json.key as string;
  return { s, app1: await key('app'), app2: await key('app'), infra: await key('infra') };
}

/** A raw initialize; the session id, or the status when there is none. */
async function open(s: TestServer, path: string, key: string): Promise<{ status: number; sid: string | undefined }> {
  const r = await fetch(`${s.url}${path}`, {
    method: 'POST',
    headers: { ...JSON_HEADERS, authorization: `Bearer ${key}` },
    body: INIT,
  });
  await r.text();
  const sid = r.headers.get('mcp-session-id') ?? undefined;
  if (sid)
    await fetch(`${s.url}${path}`, {
      method: 'POST',
      headers: {
        ...JSON_HEADERS,
        authorization: `Bearer ${key}`,
        'mcp-session-id': sid,
        'mcp-protocol-version': '2025-11-25',
      },
      body: INITIALIZED,
    });
  return { status: r.status, sid };
}

async function flood(
  s: TestServer,
  path: string,
  key: string,
  n: number,
  width = 16,
): Promise<{ statuses: Record<number, number>; sids: string[] }> {
  const statuses: Record<number, number> = {};
  const sids: string[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < n) {
        next += 1;
        const r = await open(s, path, key);
        statuses[r.status] = (statuses[r.status] ?? 0) + 1;
        if (r.sid) sids.push(r.sid);
      }
    }),
  );
  return { statuses, sids };
}

it(
  'one key opening 1000 sessions leaves room for its perimeter, the others and the operator',
  { timeout: 120_000 },
  async () => {
    const { s, app1, app2, infra } = await serverWithKeys();
    const before = s.app.sessions.limits.perKey;
    const { statuses, sids } = await flood(s, '/mcp/app', app1, 1000);
    expect(statuses).toEqual({ 200: 1000 });
    expect(s.app.sessions.counts()['app']).toBe(before);

    // The flooding key competes with itself only: its oldest sessions are gone, its newest still work.
    const lookup = (sid: string) =>
      fetch(`${s.url}/mcp/app`, {
        method: 'POST',
        headers: {
          ...JSON_HEADERS,
          authorization: `Bearer ${app1}`,
          'mcp-session-id': sid,
          'mcp-protocol-version': '2025-11-25',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} }),
      });
    expect((await lookup(sids[0] as string)).status).toBe(404);
    expect((await lookup(sids.at(-1) as string)).status).toBe(200);

    const other = await s.connect('/mcp/infra', 'legacy', { authorization: `Bearer ${infra}` });
    expect((await other.call('get_file', { path: 'infra/main.tf' })).text).toContain('2');
    const sibling = await s.connect('/mcp/app', 'legacy', { authorization: `Bearer ${app2}` });
    expect((await sibling.call('get_file', { path: 'app/main.ts' })).isError).toBeUndefined();
    const root = await s.connect('/mcp/root', 'legacy', { authorization: `Bearer ${OPS_TOKEN}` });
    expect((await root.client.listTools()).tools.length).toBeGreaterThan(0);
  },
);

it('caps a perimeter as a whole and the server as a whole, never the operator', { timeout: 60_000 }, async () => {
  const { s, app1, app2, infra } = await serverWithKeys({
    sessionLimits: { perKey: 4, perPerimeter: 6, max: 8, root: 2 },
  });
  expect((await flood(s, '/mcp/app', app1, 10, 2)).statuses).toEqual({ 200: 10 });
  // A second key of the same perimeter fills the perimeter's room, then gets 503: other perimeters are untouched.
  expect((await flood(s, '/mcp/app', app2, 3, 1)).statuses).toEqual({ 200: 2, 503: 1 });
  expect((await flood(s, '/mcp/infra', infra, 3, 1)).statuses).toEqual({ 200: 2, 503: 1 });
  expect(s.app.sessions.size).toBe(8);
  // The operator's room is its own: the server being full of agents does not touch it, and it evicts only itself.
  expect((await flood(s, '/mcp/root', OPS_TOKEN, 5, 1)).statuses).toEqual({ 200: 5 });
  expect(s.app.sessions.counts()['root']).toBe(2);
});

/** Opens a GET event stream on a session and keeps it open until the server ends it. */
function holdStream(
  s: TestServer,
  sid: string,
  key: string,
): { req: ClientRequest; ended: Promise<void>; opened: Promise<number> } {
  const u = new URL(s.url);
  let opened!: (n: number) => void;
  const openedP = new Promise<number>((r) => (opened = r));
  let req!: ClientRequest;
  const ended = new Promise<void>((resolve) => {
    req = httpRequest(
      {
        host: u.hostname,
        port: u.port,
        method: 'GET',
        path: '/mcp/app',
        agent: false,
        headers: {
          accept: 'text/event-stream',
          authorization: `Bearer ${key}`,
          'mcp-session-id': sid,
          'mcp-protocol-version': '2025-11-25',
        },
      },
      (res) => {
        opened(res.statusCode ?? 0);
        res.on('data', () => undefined);
        res.on('close', () => resolve());
      },
    );
    req.on('error', () => resolve());
    req.end();
  });
  return { req, ended, opened: openedP };
}

it('counts GET streams and reaps sessions that only hold one open', { timeout: 60_000 }, async () => {
  const { s, app1 } = await serverWithKeys({ sessionIdleMs: 1_000, sessionLimits: { perKey: 3 } });
  const streams = [];
  for (let i = 0; i < 3; i++) {
    const { sid } = await open(s, '/mcp/app', app1);
    const h = holdStream(s, sid as string, app1);
    expect(await h.opened).toBe(200);
    streams.push(h);
  }
  await new Promise((r) => setTimeout(r, 50));
  expect(s.app.sessions.stats().streams).toBe(3);
  // At the cap, a new session closes the key's oldest one, stream included.
  await open(s, '/mcp/app', app1);
  await streams[0]?.ended;
  expect(s.app.sessions.counts()['app']).toBe(3);
  // A held stream is not activity: past the idle limit the sessions are reaped and their streams end.
  await new Promise((r) => setTimeout(r, 1_100));
  expect(await s.app.sessions.reap()).toBe(3);
  await Promise.all(streams.slice(1).map((h) => h.ended));
  expect(s.app.sessions.size).toBe(0);
  expect(s.app.sessions.stats().streams).toBe(0);
});

it("gives a revoked key's sessions' room back at the next initialize", { timeout: 60_000 }, async () => {
  const { s, app2 } = await serverWithKeys({ sessionLimits: { perKey: 4, perPerimeter: 4 } });
  const issued = await s.api('POST', '/api/perimeters/app/keys');
  expect((await flood(s, '/mcp/app', issued.json.key as string, 4, 1)).statuses).toEqual({ 200: 4 });
  expect((await open(s, '/mcp/app', app2)).status).toBe(503);
  expect((await s.api('DELETE', `/api/perimeters/app/keys/${issued.json.id}`)).status).toBe(200);
  expect((await open(s, '/mcp/app', app2)).status).toBe(200);
  expect(s.app.sessions.counts()['app']).toBe(1);
});
