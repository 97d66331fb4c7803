// Issue 9 item 1: a 2026-07-28 request to /mcp/<id> was admitted on the request path but answered by a server chosen
// from a URL rebuilt from the Host header, so `Host: 127.0.0.1:PORT/mcp/root?` turned one perimeter's key into the
// operator surface. And /mcp/root opened any git directory on the disk. Real server, real repositories, raw requests.
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGitHubUpstream, type GitHubUpstream } from '../../src/upstream/github/index.js';
import { createLocalGitUpstream } from '../../src/upstream/localgit/index.js';
import { makeRepo, type GitDir } from '../support/gitdir.js';
import { startGitHubEmulator, type Emulator } from '../support/github-emulator/index.js';
import { OPS_TOKEN, startTestServer, type TestServer } from '../support/server.js';

const TOKEN = 'ghp_Issue9HostPivotEmulatorToken0123456789';
const SECRET = 'CANARY_ISSUE9_SECRET';

interface Answer {
  status: number;
  text: string;
}

/** A raw HTTP/1.1 request: any Host, any request target, exactly as written. */
function raw(
  base: string,
  o: { method?: string; path: string; headers?: Record<string, string>; body?: string },
): Promise<Answer> {
  const u = new URL(base);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: u.hostname,
        port: u.port,
        method: o.method ?? 'POST',
        path: o.path,
        headers: o.headers ?? {},
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    if (o.body !== undefined) req.write(o.body);
    req.end();
  });
}

const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'attacker', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

/** A 2026-07-28 `tools/call` as the SDK client sends it. */
function modernCall(name: string, args: Record<string, unknown>): { headers: Record<string, string>; body: string } {
  return {
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': name,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 7,
      method: 'tools/call',
      params: { name, arguments: args, _meta: META },
    }),
  };
}

type Kind = 'local' | 'github';

interface World {
  srv: TestServer;
  repo: string;
  key: string;
  port: string;
  close(): Promise<void>;
}

async function world(kind: Kind, source: GitDir): Promise<World> {
  let emulator: Emulator | undefined;
  let github: GitHubUpstream | undefined;
  let srv: TestServer;
  let repo = source.dir;
  if (kind === 'github') {
    emulator = await startGitHubEmulator({ token: TOKEN, repos: { 'acme/pivot': source.dir } });
    const up = createGitHubUpstream({
      token: TOKEN,
      baseUrl: emulator.url,
      writeSpacingMs: 0,
      retryDelayMs: 5,
      maxRetries: 1,
      maxRateLimitWaitSeconds: 1,
    });
    github = up;
    repo = 'acme/pivot';
    srv = await startTestServer({
      openPerimeters: false,
      upstream: up,
      upstreamFor: (r) => (r === 'acme/pivot' ? up : undefined),
    });
  } else {
    const up = createLocalGitUpstream();
    srv = await startTestServer({ openPerimeters: false, upstream: up });
  }
  await srv.perimeter({ id: 'app', repo, read: ['app/**'], write: [] });
  const issued = await srv.api('POST', '/api/perimeters/app/keys');
  expect(issued.status).toBe(201);
  return {
    srv,
    repo,
    key: issued.json.key as string,
    port: new URL(srv.url).port,
    close: async () => {
      await srv.close();
      await github?.close();
      await emulator?.close();
    },
  };
}

let source: GitDir;
let stray: GitDir;
const worlds = new Map<Kind, World>();

beforeAll(async () => {
  source = await makeRepo(
    [{ message: 'init', files: { 'app/main.ts': 'export const main = 1;\n', 'secret/keys.txt': `${SECRET}\n` } }],
    { bare: true },
  );
  stray = await makeRepo([{ message: 'stray', files: { 'notes.txt': `${SECRET} stray\n` } }]);
  for (const k of ['local', 'github'] as const) worlds.set(k, await world(k, source));
}, 60_000);

afterAll(async () => {
  await Promise.all([...worlds.values()].map((w) => w.close()));
  await source?.cleanup();
  await stray?.cleanup();
});

describe.each(['local', 'github'] as const)('%s upstream', (kind) => {
  const w = () => worlds.get(kind) as World;

  it('refuses a modern call whose Host carries a path to root, and never answers as root', async () => {
    const { port, key, repo, srv } = w();
    const call = modernCall('get_file', { repo, path: 'secret/keys.txt' });
    for (const host of [
      `127.0.0.1:${port}/mcp/root?`,
      `127.0.0.1:${port}/mcp/root#`,
      `127.0.0.1/mcp/root?x=`,
      `localhost:${port}/mcp/root/../root?`,
    ]) {
      const r = await raw(srv.url, {
        path: '/mcp/app',
        headers: { ...call.headers, host, authorization: `Bearer ${key}` },
        body: call.body,
      });
      expect(r.status, `Host ${host}`).toBe(400);
      expect(r.text).not.toContain(SECRET);
    }
  });

  it('serves the perimeter, not root, to a modern call with a plain Host', async () => {
    const { port, key, repo, srv } = w();
    const rooted = modernCall('get_file', { repo, path: 'secret/keys.txt' });
    const r = await raw(srv.url, {
      path: '/mcp/app',
      headers: { ...rooted.headers, host: `127.0.0.1:${port}`, authorization: `Bearer ${key}` },
      body: rooted.body,
    });
    expect(r.text).not.toContain(SECRET);
    const own = modernCall('get_file', { path: 'app/main.ts' });
    const ok = await raw(srv.url, {
      path: '/mcp/app',
      headers: { ...own.headers, host: `127.0.0.1:${port}`, authorization: `Bearer ${key}` },
      body: own.body,
    });
    expect(ok.status).toBe(200);
    expect(ok.text).toContain('export const main = 1;');
  });

  it('rejects a Host that is not a bare host[:port] on every route', async () => {
    const { port, srv } = w();
    const hostile = [
      `127.0.0.1:${port}/x`,
      `127.0.0.1:${port}?q`,
      `user@127.0.0.1:${port}`,
      `127.0.0.1:${port} x`,
      `127.0.0.1:99999`,
      `127.0.0.1:${port}\\x`,
    ];
    for (const host of hostile) {
      for (const [method, path] of [
        ['GET', '/mcp'],
        ['GET', '/api/health'],
        ['POST', '/mcp/app'],
        ['GET', '/nowhere'],
      ] as const) {
        const r = await raw(srv.url, { method, path, headers: { host, authorization: `Bearer ${OPS_TOKEN}` } });
        expect(r.status, `${method} ${path} Host ${JSON.stringify(host)}`).toBe(400);
      }
    }
    expect(
      (await raw(srv.url, { method: 'GET', path: '/mcp', headers: { host: `evil.example:${port}` } })).status,
    ).toBe(403);
    expect((await raw(srv.url, { method: 'GET', path: '/mcp', headers: { host: `localhost:${port}` } })).status).toBe(
      200,
    );
  });

  it('rejects absolute-URI and protocol-relative request targets', async () => {
    const { port, key, srv } = w();
    const call = modernCall('get_file', { path: 'app/main.ts' });
    for (const path of [
      `http://127.0.0.1:${port}/mcp/root`,
      `http://127.0.0.1:${port}/mcp/app`,
      `//127.0.0.1:${port}/mcp/root`,
      '*',
    ]) {
      const r = await raw(srv.url, {
        path,
        headers: { ...call.headers, host: `127.0.0.1:${port}`, authorization: `Bearer ${key}` },
        body: call.body,
      });
      expect(r.status, path).toBe(400);
    }
  });

  it('opens on /mcp/root only repositories of registered perimeters', async () => {
    const { srv, repo } = w();
    const root = await srv.connect('/mcp/root', 'legacy', { authorization: `Bearer ${OPS_TOKEN}` });
    const registered = await root.call('get_file', { repo, path: 'secret/keys.txt' });
    expect(registered.text).toContain(SECRET);
    for (const other of [stray.dir, `${stray.dir}/`, '/etc', 'acme/unregistered']) {
      const r = await root.call('get_file', { repo: other, path: 'notes.txt' });
      expect(r.isError, other).toBe(true);
      expect(r.text).not.toContain(SECRET);
    }
  });
});
