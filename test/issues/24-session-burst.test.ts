// Issue 24, sessions under a burst: with a key at its session cap (clients that never send DELETE leave theirs), 16
// agents connecting at once got `initialize` answered with "Session not found": each new session evicted the one
// opened just before it, which had made no request yet and so looked abandoned. Now a session still being
// initialized is never evicted, and an `initialize` that finds no room gets 503 with Retry-After.
// Real server; raw HTTP POSTs for the burst.
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { makeRepo, type GitDir } from '../support/gitdir.js';
import { startTestServer, type TestServer } from '../support/server.js';

const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const INIT = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'burst', version: '1' } },
});
const INITIALIZED = JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' });
const CALL = JSON.stringify({
  jsonrpc: '2.0',
  id: 2,
  method: 'tools/call',
  params: { name: 'get_file', arguments: { path: 'app/main.ts' } },
});

let repo: GitDir;
let srv: TestServer | undefined;

beforeAll(async () => {
  repo = await makeRepo([{ message: 'init', files: { 'app/main.ts': 'burst-ok\n' } }]);
});
afterEach(async () => {
  await srv?.close();
  srv = undefined;
});
afterAll(async () => {
  await repo?.cleanup();
});

interface Answer {
  status: number;
  sid: string | undefined;
  retryAfter: string | null;
  body: string;
}

async function initialize(s: TestServer, key: string): Promise<Answer> {
  const r = await fetch(`${s.url}/mcp/app`, {
    method: 'POST',
    headers: { ...JSON_HEADERS, authorization: `Bearer ${key}` },
    body: INIT,
  });
  return {
    status: r.status,
    sid: r.headers.get('mcp-session-id') ?? undefined,
    retryAfter: r.headers.get('retry-after'),
    body: await r.text(),
  };
}

async function post(s: TestServer, key: string, sid: string, body: string): Promise<{ status: number; body: string }> {
  const r = await fetch(`${s.url}/mcp/app`, {
    method: 'POST',
    headers: {
      ...JSON_HEADERS,
      authorization: `Bearer ${key}`,
      'mcp-session-id': sid,
      'mcp-protocol-version': '2025-11-25',
    },
    body,
  });
  return { status: r.status, body: await r.text() };
}

it(
  '64 concurrent initializes at the cap: each is served or told to retry, none evicts another, every served one can call',
  { timeout: 120_000 },
  async () => {
    const s = await startTestServer({ openPerimeters: false });
    srv = s;
    await s.perimeter({ id: 'app', repo: repo.dir, read: ['app/**'] });
    const key = (await s.api('POST', '/api/perimeters/app/keys')).json.key as string;
    const cap = s.app.sessions.limits.perKey;

    // The key's room filled by clients that made calls and left without DELETE.
    for (let i = 0; i < cap; i++) {
      const a = await initialize(s, key);
      expect(a.status).toBe(200);
      expect((await post(s, key, a.sid as string, INITIALIZED)).status).toBe(202);
      expect((await post(s, key, a.sid as string, CALL)).body).toContain('burst-ok');
    }
    expect(s.app.sessions.counts()['app']).toBe(cap);

    const burst = await Promise.all(Array.from({ length: 64 }, () => initialize(s, key)));
    const served = burst.filter((a) => a.status === 200);
    const refused = burst.filter((a) => a.status !== 200);
    for (const a of burst) expect(a.body).not.toContain('Session not found');
    for (const a of served) expect(a.sid).toMatch(/^[0-9a-f-]{36}$/);
    for (const a of refused) {
      expect(a.status).toBe(503);
      expect(Number(a.retryAfter)).toBeGreaterThanOrEqual(1);
      const err = JSON.parse(a.body) as { jsonrpc: string; error: { code: number; message: string } };
      expect(err.jsonrpc).toBe('2.0');
      expect(err.error.message).toMatch(/too many sessions for this key/i);
    }
    // The abandoned sessions made room: the cap's worth is served, the rest are told when to come back.
    expect(served.length).toBe(cap);
    expect(refused.length).toBe(64 - cap);

    const calls = await Promise.all(
      served.map(async (a) => {
        const sid = a.sid as string;
        const note = await post(s, key, sid, INITIALIZED);
        const call = await post(s, key, sid, CALL);
        return { note: note.status, call };
      }),
    );
    for (const c of calls) {
      expect(c.note).toBe(202);
      expect(c.call.status).toBe(200);
      expect(c.call.body).toContain('burst-ok');
    }
    expect(s.app.sessions.counts()['app']).toBe(cap);
  },
);

it(
  'a session still in its handshake is not evicted by the next initialize, which is told when to retry',
  { timeout: 60_000 },
  async () => {
    const s = await startTestServer({ openPerimeters: false, sessionLimits: { perKey: 2 } });
    srv = s;
    await s.perimeter({ id: 'app', repo: repo.dir, read: ['app/**'] });
    const key = (await s.api('POST', '/api/perimeters/app/keys')).json.key as string;
    // Two initializes and nothing else: both are still being initialized, so a third is refused, not served by eviction.
    expect((await initialize(s, key)).status).toBe(200);
    expect((await initialize(s, key)).status).toBe(200);
    const third = await initialize(s, key);
    expect(third.status).toBe(503);
    expect(Number(third.retryAfter)).toBeGreaterThan(0);
    expect(Number(third.retryAfter)).toBeLessThanOrEqual(30);
  },
);
