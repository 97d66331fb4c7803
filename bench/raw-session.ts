// A 2025-era session opened with raw HTTP requests, as an SDK client opens one (initialize, initialized, tools/list),
// and the GET stream such a client holds while idle: for the benches that measure what the server keeps per session
// without SDK client objects in the measuring process.
import { type Agent, request as httpRequest } from 'node:http';
import { rawPost, type RawAnswer } from './raw-post.js';

export const LEGACY = '2025-11-25';

/** One raw POST over `agent`; a pooled socket the server closed meanwhile gets one retry on a fresh socket. */
export async function post(
  agent: Agent,
  url: string,
  headers: Record<string, string>,
  body: unknown,
): Promise<RawAnswer> {
  const once = () => rawPost(agent, new URL(url), headers, JSON.stringify(body));
  try {
    return await once();
  } catch (err) {
    if ((err as { code?: string }).code !== 'ECONNRESET') throw err;
    return once();
  }
}

/** Opens a session: initialize, initialized, tools/list; then it goes quiet. Resolves to its session id. */
export async function openIdleSession(agent: Agent, url: string): Promise<string> {
  const init = await post(
    agent,
    url,
    {},
    {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: LEGACY, capabilities: {}, clientInfo: { name: 'bench', version: '1' } },
    },
  );
  const sid = init.headers['mcp-session-id'];
  if (typeof sid !== 'string') throw new Error(`initialize answered ${init.status}: ${init.body.slice(0, 200)}`);
  const h = { 'mcp-session-id': sid, 'mcp-protocol-version': LEGACY };
  await post(agent, url, h, { jsonrpc: '2.0', method: 'notifications/initialized' });
  const list = await post(agent, url, h, { jsonrpc: '2.0', id: 2, method: 'tools/list' });
  if (list.status !== 200) throw new Error(`tools/list answered ${list.status}`);
  return sid;
}

/**
 * Opens the GET stream most 2025 clients hold after initialize (on a socket of its own); resolves once the server
 * answered. The request is pushed to `held` so the caller can end it.
 */
export function openStream(url: string, sid: string, held: { destroy(): void }[]): Promise<void> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: u.hostname,
        port: u.port,
        path: u.pathname,
        method: 'GET',
        agent: false,
        headers: { accept: 'text/event-stream', 'mcp-session-id': sid, 'mcp-protocol-version': LEGACY },
      },
      (res) => {
        if (res.statusCode !== 200) reject(new Error(`GET stream answered ${res.statusCode}`));
        res.on('data', () => undefined);
        resolve();
      },
    );
    req.on('error', reject);
    held.push(req);
    req.end();
  });
}

/** Ends a session as a well-behaved client does (DELETE with its id); resolves to the status. */
export function deleteSession(agent: Agent, url: string, sid: string): Promise<number> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: u.hostname,
        port: u.port,
        path: u.pathname,
        method: 'DELETE',
        agent,
        headers: { 'mcp-session-id': sid, 'mcp-protocol-version': LEGACY },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end();
  });
}
