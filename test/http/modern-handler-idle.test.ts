// The 2026-07-28 handlers are kept per owner (agent key), but keys come and go: an owner's handler must not outlive its
// use. Handlers of owners with a request in flight (a listen stream is one that stays open) are never dropped; of the
// idle ones only the most recently used are kept. Real HTTP server, real SDK servers and clients.
import type { AddressInfo } from 'node:net';
import { createServer, type Server as HttpServer } from 'node:http';
import express from 'express';
import * as z from 'zod/v4';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { McpServer } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { modernHandler, type ModernHandler } from '../../src/http/modern-handler.js';

type Admission = { readonly owner: string };

let http: HttpServer;
let url: string;
let modern: ModernHandler<Admission>;

beforeAll(async () => {
  modern = modernHandler<Admission>(
    (a) => {
      const server = new McpServer({ name: 'idle-test', version: '0.0.0' });
      server.registerTool(
        'whoami',
        { description: 'The owner this request was admitted for.', inputSchema: z.object({}) },
        () => ({
          content: [{ type: 'text' as const, text: a.owner }],
        }),
      );
      return server.server;
    },
    (a) => a.owner,
    { maxIdle: 2 },
  );
  const app = express();
  app.use(express.json());
  app.all('/mcp/:owner', async (req, res) => {
    const served = await modern.serve(req, res, { owner: String(req.params['owner']) });
    if (served === 'legacy') res.status(400).json({ error: 'legacy requests are not served here' });
  });
  http = createServer(app);
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await modern?.close();
  http?.closeAllConnections();
  await new Promise((resolve) => http?.close(resolve));
});

async function client(owner: string): Promise<Client> {
  const c = new Client({ name: owner, version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
  await c.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp/${owner}`)));
  return c;
}

const whoami = async (c: Client): Promise<string> => {
  const r = (await c.callTool({ name: 'whoami', arguments: {} })) as { content: { text: string }[] };
  return r.content.map((x) => x.text).join('');
};

it('keeps a listening owner and the most recent idle owners, and drops the older idle ones', async () => {
  const listener = await client('listener');
  const sub = await listener.listen({ toolsListChanged: true });
  const others: Client[] = [];
  try {
    expect(modern.owners()).toContain('listener');
    for (const owner of ['o1', 'o2', 'o3', 'o4', 'o5']) {
      const c = await client(owner);
      others.push(c);
      expect(await whoami(c)).toBe(owner);
    }
    // The listener's stream is still open: its handler stays, whatever the idle bound. Of the idle owners, the two
    // most recently used are kept.
    expect(modern.owners().sort()).toEqual(['listener', 'o4', 'o5']);
    // A dropped owner is served again, by a fresh handler, with its own admission.
    expect(await whoami(others[0]!)).toBe('o1');
    expect(modern.owners().sort()).toEqual(['listener', 'o1', 'o5']);
    expect(await whoami(listener)).toBe('listener');
  } finally {
    await sub.close();
    await Promise.all([listener, ...others].map((c) => c.close()));
  }
  // With the stream closed the listener is idle too: only the bound's worth of owners remain.
  await expect.poll(() => modern.owners().length).toBe(2);
}, 30_000);
