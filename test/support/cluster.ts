// Several instances of the BUILT server (`npm run build` first) on one shared store, and a round-robin HTTP balancer
// in front of them: what an operator runs behind nginx or HAProxy, with real processes and real sockets.
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, request, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { childEnv, startServer, type ServerProcess } from './cli-process.js';

export const CLUSTER_OPS_TOKEN = 'cluster-ops-token-0123456789abcdef';

export interface Instance {
  readonly url: string;
  readonly stateDir: string;
  process: ServerProcess;
}

/** Starts one `serve` on `store` with its own state dir (audit, cursor key, lock) and the shared ops token. */
export async function startInstance(o: {
  store: string;
  config: string;
  cwd: string;
  args?: string[];
  /** More environment (GITHUB_TOKEN for a GitHub upstream). */
  env?: Record<string, string>;
}): Promise<Instance> {
  const stateDir = await mkdtemp(join(tmpdir(), 'gb-inst-'));
  const p = await startServer(['--config', o.config, '--state-dir', stateDir, ...(o.args ?? [])], {
    cwd: o.cwd,
    env: childEnv({ ...o.env, GIT_BLINDER_STORE: o.store, GIT_BLINDER_OPS_TOKEN: CLUSTER_OPS_TOKEN }),
  });
  return { url: p.url, stateDir, process: p };
}

/** Stops an instance and removes its state dir. */
export async function stopInstance(i: Instance): Promise<void> {
  await i.process.stop();
  await rm(i.stateDir, { recursive: true, force: true });
}

/**
 * `n` instances on one store, appended to `into` as they come up (so an afterAll stops whatever did start). The first
 * starts alone and migrates the schema; the others then start together, as an operator's replicas do.
 */
export async function startInstances(
  n: number,
  o: Parameters<typeof startInstance>[0],
  into: Instance[],
): Promise<Instance[]> {
  into.push(await startInstance(o));
  const rest = await Promise.allSettled(Array.from({ length: n - 1 }, () => startInstance(o)));
  for (const r of rest) if (r.status === 'fulfilled') into.push(r.value);
  const failed = rest.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) throw failed.reason;
  return into;
}

/** Stops every instance at once (each waits for its own shutdown), ignoring ones already gone. */
export async function stopInstances(inst: readonly Instance[]): Promise<void> {
  await Promise.all(inst.map((i) => stopInstance(i).catch(() => undefined)));
}

/**
 * A round-robin balancer without affinity: request n goes to backend n mod N. By default it addresses each backend by
 * its own Host; `keepHost` forwards the client's Host as nginx's `proxy_set_header Host $host` does (the backends then
 * admit the balancer's name with --allowed-host), listening on `listen` (default 127.0.0.1, a free port).
 */
export async function roundRobin(
  backends: () => readonly string[],
  o: { keepHost?: boolean; listen?: { host: string; port: number } } = {},
): Promise<{ url: string; hits: number[]; close(): Promise<void> }> {
  let next = 0;
  const hits: number[] = [];
  const server: Server = createServer((req, res) => {
    const list = backends();
    const i = next++ % list.length;
    hits.push(i);
    const target = new URL(req.url ?? '/', list[i]);
    const headers = o.keepHost ? req.headers : { ...req.headers, host: target.host };
    const up = request(target, { method: req.method, headers }, (r) => {
      res.writeHead(r.statusCode ?? 502, r.headers);
      r.pipe(res);
    });
    up.on('error', () => {
      if (!res.headersSent) res.writeHead(502).end('backend down');
      else res.destroy();
    });
    req.pipe(up);
  });
  const at = o.listen ?? { host: '127.0.0.1', port: 0 };
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(at.port, at.host, () => resolve());
  });
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : 0;
  return {
    url: port === 80 ? `http://${at.host}` : `http://${at.host}:${port}`,
    hits,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** The outcome of one tool call as a test reads it; a transport-level refusal (HTTP 404/401) is `thrown`. */
export interface CallResult {
  readonly isError: boolean;
  readonly text: string;
  readonly structured: any;
  readonly thrown?: string;
}

/** A 2026-07-28 (stateless) MCP client at `url + path` with an agent key. */
export async function modernAgent(
  url: string,
  path: string,
  key: string,
): Promise<{ call(name: string, args: Record<string, unknown>): Promise<CallResult>; close(): Promise<void> }> {
  const client = new Client({ name: 'cluster-agent', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
  const transport = new StreamableHTTPClientTransport(new URL(url + path), {
    requestInit: { headers: { authorization: `Bearer ${key}` } },
  });
  await client.connect(transport);
  return {
    async call(name, args) {
      try {
        const r = (await client.callTool({ name, arguments: args })) as {
          isError?: boolean;
          content: { text: string }[];
          structuredContent?: unknown;
        };
        return {
          isError: r.isError === true,
          text: r.content.map((c) => c.text).join('\n'),
          structured: r.structuredContent,
        };
      } catch (e) {
        return { isError: true, text: '', structured: undefined, thrown: (e as Error).message };
      }
    },
    close: () => client.close(),
  };
}

/** An operator API call on one instance. */
export async function api(
  base: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; json: any }> {
  const res = await fetch(base + '/api' + path, {
    method,
    headers: {
      authorization: `Bearer ${CLUSTER_OPS_TOKEN}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, json: await res.json().catch(() => null) };
}
