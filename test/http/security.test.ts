// Issue 4 at the HTTP boundary: keys, ops-only root, Origin checks, privacy zones, protected paths, secrets, limits.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RateLimiter } from '../../src/mcp/index.js';
import { makeRepo, type GitDir } from '../support/gitdir.js';
import { OPS_TOKEN, startTestServer, type TestServer } from '../support/server.js';

let repo: GitDir;
let srv: TestServer;
let key: string;

const post = (url: string, headers: Record<string, string> = {}) =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'probe', version: '1' } },
    }),
  });

beforeAll(async () => {
  repo = await makeRepo([
    {
      message: 'init',
      files: {
        'app/main.ts': 'export const x = 1;\n',
        'app/.env': 'DB_PASSWORD=hunter2\n',
        'app/.env.example': 'DB_PASSWORD=\n',
        'app/logo.png': Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 3]),
        'app/id_rsa': 'not really\n',
        '.github/workflows/ci.yml': 'on: push\n',
      },
    },
    { message: 'only a secret', files: { 'app/.env': 'DB_PASSWORD=rotated\n' } },
  ]);
  srv = await startTestServer({ openPerimeters: false, limiter: new RateLimiter() });
  await srv.perimeter({ id: 'app', repo: repo.dir, read: ['**'], write: ['**'] });
  await srv.perimeter({
    id: 'tight',
    repo: repo.dir,
    read: ['app/**'],
    write: ['app/**'],
    limits: { calls_per_minute: 3, files_per_commit: 1 },
  });
  await srv.perimeter({
    id: 'granted',
    repo: repo.dir,
    read: ['**'],
    write: ['**'],
    allow_protected: ['.github/workflows/ci.yml'],
    allow_binary: true,
    allow_secrets: true,
  });
  const issued = await srv.api('POST', '/api/perimeters/app/keys');
  expect(issued.status).toBe(201);
  key = issued.json.key;
  for (const id of ['tight', 'granted']) {
    const k = await srv.api('POST', `/api/perimeters/${id}/keys`);
    (globalThis as any)[`key_${id}`] = k.json.key;
  }
});

afterAll(async () => {
  await srv?.close();
  await repo?.cleanup();
});

const auth = (k: string) => ({ authorization: `Bearer ${k}` });

describe('agent keys', () => {
  it('answers a missing key, a wrong key, a key of another perimeter and an unknown perimeter identically', async () => {
    const answers = await Promise.all([
      post(`${srv.url}/mcp/app`),
      post(`${srv.url}/mcp/app`, auth('gbk_wrong')),
      post(`${srv.url}/mcp/app`, auth((globalThis as any).key_tight)),
      post(`${srv.url}/mcp/nope`, auth(key)),
      post(`${srv.url}/mcp/app/no-branch`, auth(key)),
    ]);
    const bodies = await Promise.all(answers.map((r) => r.text()));
    expect(answers.map((r) => r.status)).toEqual([404, 404, 404, 404, 404]);
    expect(new Set(bodies).size).toBe(1);
    expect((await post(`${srv.url}/mcp/app`, auth(key))).status).toBe(200);
  });

  it('stores hashes only and shows key ids, never keys or hashes', async () => {
    const shown = await srv.api('GET', '/api/perimeters/app');
    expect(JSON.stringify(shown.json)).not.toContain(key);
    expect(shown.json.perimeter.keys[0]).toEqual({
      id: expect.any(String),
      agent: expect.stringMatching(/^key-/),
      created_at: expect.any(String),
    });
    expect(JSON.stringify(srv.store.get('app'))).not.toContain(key);
  });

  it('refuses a revoked key at the very next request of an open session', async () => {
    const issued = await srv.api('POST', '/api/perimeters/app/keys');
    const agent = await srv.connect('/mcp/app', 'legacy', auth(issued.json.key));
    expect((await agent.call('get_file', { path: 'app/main.ts' })).isError).toBeUndefined();
    expect((await srv.api('DELETE', `/api/perimeters/app/keys/${issued.json.id}`)).status).toBe(200);
    await expect(agent.call('get_file', { path: 'app/main.ts' })).rejects.toThrow(/Not found/);
  });

  it('opens /mcp/root to the ops token only, and lists perimeter ids only to it', async () => {
    expect((await post(`${srv.url}/mcp/root`)).status).toBe(404);
    expect((await post(`${srv.url}/mcp/root`, auth(key))).status).toBe(404);
    expect((await post(`${srv.url}/mcp/root`, auth(OPS_TOKEN))).status).toBe(200);
    expect(((await (await fetch(`${srv.url}/mcp`)).json()) as any).perimeters).toBeUndefined();
    expect(((await (await fetch(`${srv.url}/mcp`, { headers: auth(OPS_TOKEN) })).json()) as any).perimeters).toEqual([
      'app',
      'granted',
      'tight',
    ]);
  });
});

describe('Host and Origin', () => {
  it('refuses a foreign browser Origin and a foreign Host with 403 on MCP and API routes', async () => {
    expect((await post(`${srv.url}/mcp/app`, { ...auth(key), origin: 'http://evil.example' })).status).toBe(403);
    expect(
      (await fetch(`${srv.url}/api/perimeters`, { headers: { ...auth(OPS_TOKEN), origin: 'https://evil.example' } }))
        .status,
    ).toBe(403);
    // Issue 9 item 12: only the server's own origin, not any port on localhost (test/issues/9-origin-own-port.test.ts).
    expect(
      (await post(`${srv.url}/mcp/app`, { ...auth(key), origin: `http://localhost:${new URL(srv.url).port}` })).status,
    ).toBe(200);
  });
});

describe('privacy zones', () => {
  it('hides secret files inside read globs exactly like missing files, and keeps templates', async () => {
    const a = await srv.connect('/mcp/app', 'legacy', auth(key));
    const env = await a.call('get_file', { path: 'app/.env' });
    const none = await a.call('get_file', { path: 'app/.nope' });
    expect(env.isError).toBe(true);
    expect(env.text.replace('app/.env', 'P')).toBe(none.text.replace('app/.nope', 'P'));
    expect((await a.call('get_file', { path: 'app/.env.example' })).isError).toBeUndefined();
    const tree = await a.call('get_tree', { recursive: true });
    const paths = tree.structured.entries.map((e: { path: string }) => e.path);
    expect(paths).not.toContain('app/.env');
    expect(paths).not.toContain('app/id_rsa');
    expect(paths).toContain('app/.env.example');
  });

  it('does not list a commit that only touched a private file', async () => {
    const a = await srv.connect('/mcp/app', 'legacy', auth(key));
    const list = await a.call('list_commits', {});
    expect(list.structured.commits.map((c: { message: string }) => c.message.trim())).toEqual(['init']);
  });
});

describe('writes are guarded', () => {
  it('refuses protected paths inside write unless granted by name', async () => {
    const a = await srv.connect('/mcp/app', 'legacy', auth(key));
    const before = await repo.head();
    const r = await a.call('push_files', {
      message: 'ci',
      files: [{ path: '.github/workflows/ci.yml', content: 'on: pull_request\n' }],
    });
    expect(r.isError).toBe(true);
    expect(r.text).toContain('.github/workflows/ci.yml');
    expect(await repo.head()).toBe(before);
    const g = await srv.connect('/mcp/granted', 'legacy', auth((globalThis as any).key_granted));
    expect(
      (
        await g.call('push_files', {
          message: 'ci',
          files: [{ path: '.github/workflows/ci.yml', content: 'on: pull_request\n' }],
        })
      ).isError,
    ).toBeUndefined();
  });

  it('refuses content that looks like a credential, naming file and line, and writes nothing', async () => {
    const a = await srv.connect('/mcp/app', 'legacy', auth(key));
    const before = await repo.head();
    const token = 'ghp_' + 'A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8';
    const r = await a.call('push_files', {
      message: 'cfg',
      files: [{ path: 'app/config.ts', content: `export const a = 1;\nconst t = "${token}";\n` }],
    });
    expect(r.isError).toBe(true);
    expect(r.text).toContain('app/config.ts');
    expect(r.text).toMatch(/line 2/);
    expect(r.text).not.toContain(token);
    expect(await repo.head()).toBe(before);
  });

  it('refuses binary content unless the perimeter allows it', async () => {
    const a = await srv.connect('/mcp/app', 'legacy', auth(key));
    const r = await a.call('get_file', { path: 'app/logo.png' });
    expect(r.isError).toBe(true);
    expect(r.text).toMatch(/binary/);
    const g = await srv.connect('/mcp/granted', 'legacy', auth((globalThis as any).key_granted));
    const ok = await g.call('get_file', { path: 'app/logo.png' });
    expect(ok.structured.encoding).toBe('base64');
  });

  it('enforces files per commit and the call rate with clear errors', async () => {
    const t = await srv.connect('/mcp/tight', 'legacy', auth((globalThis as any).key_tight));
    const two = await t.call('push_files', {
      message: 'x',
      files: [
        { path: 'app/a.ts', content: '1' },
        { path: 'app/b.ts', content: '2' },
      ],
    });
    expect(two.text).toMatch(/at most 1 files per commit/);
    await t.call('get_tree', {});
    await t.call('get_tree', {}); // third call of the minute: still allowed
    const limited = await t.call('get_tree', {});
    expect(limited.isError).toBe(true);
    expect(limited.text).toMatch(/Rate limited: this perimeter allows 3 calls per minute; retry after \d+ s/);
  });
});
