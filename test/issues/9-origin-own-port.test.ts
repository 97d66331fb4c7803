// Issue 9 item 12: any `http://localhost:<port>` Origin was accepted whatever port the server listens on, so a page
// served by any other local process (a dev server on :5173) could drive the MCP and /api routes from a browser.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { makeRepo, type GitDir } from '../support/gitdir.js';
import { OPS_TOKEN, startTestServer, type TestServer } from '../support/server.js';

let repo: GitDir;
let srv: TestServer;
let port: number;

beforeAll(async () => {
  repo = await makeRepo([{ message: 'init', files: { 'app/main.ts': '1\n' } }]);
  srv = await startTestServer();
  await srv.perimeter({ id: 'app', repo: repo.dir, read: ['app/**'] });
  port = Number(new URL(srv.url).port);
});

afterAll(async () => {
  await srv?.close();
  await repo?.cleanup();
});

const INIT = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'o', version: '1' } },
});
const mcp = (origin: string) =>
  fetch(`${srv.url}/mcp/app`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', origin },
    body: INIT,
  });
const api = (origin: string) =>
  fetch(`${srv.url}/api/health`, { headers: { authorization: `Bearer ${OPS_TOKEN}`, origin } });

it('refuses a localhost Origin on another port, on MCP and API routes', async () => {
  for (const origin of [
    'http://localhost:5173',
    `http://localhost:${port + 1}`,
    'http://127.0.0.1:8080',
    'http://[::1]:3000',
    'http://localhost',
    `https://localhost:${port}`,
  ]) {
    expect((await mcp(origin)).status, origin).toBe(403);
    expect((await api(origin)).status, origin).toBe(403);
  }
});

it('refuses malformed and look-alike origins', async () => {
  for (const origin of [
    'null',
    'localhost',
    `http://localhost:${port}/path`,
    `http://user@localhost:${port}`,
    `http://localhost.evil.example:${port}`,
  ]) {
    expect((await mcp(origin)).status, origin).toBe(403);
  }
});

it("accepts the server's own origin under each loopback name, and no Origin at all", async () => {
  for (const origin of [`http://localhost:${port}`, `http://127.0.0.1:${port}`, `http://[::1]:${port}`]) {
    expect((await mcp(origin)).status, origin).toBe(200);
    expect((await api(origin)).status, origin).toBe(200);
  }
  expect((await fetch(`${srv.url}/api/health`, { headers: { authorization: `Bearer ${OPS_TOKEN}` } })).status).toBe(
    200,
  );
});
