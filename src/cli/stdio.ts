import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import { CliError } from './client.js';

export interface StdioOptions {
  readonly url: string;
  readonly perimeter: string;
  readonly branch?: string | undefined;
  readonly key?: string | undefined;
  /** Diagnostics only; stdout belongs to the protocol. */
  readonly err: (line: string) => void;
  readonly stdin?: NodeJS.ReadableStream;
  readonly stdout?: NodeJS.WritableStream;
}

/** The agent URL of a perimeter and optional branch (branch segments encoded one by one, `/` kept). */
export function agentUrl(base: string, perimeter: string, branch?: string): URL {
  const b = branch ? `/${branch.split('/').map(encodeURIComponent).join('/')}` : '';
  return new URL(`${base.replace(/\/+$/, '')}/mcp/${encodeURIComponent(perimeter)}${b}`);
}

/**
 * Asks the daemon for the endpoint's status before any protocol traffic, so the two mistakes a new user makes get
 * a sentence instead of a stack trace: no daemon (exit 1), no key where one is needed (exit 2). A wrong key is left
 * to the daemon's own answer, which the client then sees as for any other refusal.
 */
async function preflight(url: URL, key: string | undefined): Promise<void> {
  let status: number;
  try {
    const r = await fetch(url, {
      headers: key ? { authorization: `Bearer ${key}` } : {},
      signal: AbortSignal.timeout(10_000),
    });
    await r.body?.cancel();
    status = r.status;
  } catch {
    throw new CliError(`cannot reach git-blinder at ${url.origin}: is \`serve\` running?`, 1);
  }
  if (status === 404 && key === undefined)
    throw new CliError('no agent key (set GIT_BLINDER_AGENT_KEY or --key-file)', 2);
}

/**
 * A stdio MCP server that forwards every message to the daemon's perimeter URL and back, unchanged: the daemon's
 * core decides, the bridge only carries. Resolves when stdin closes (after ending the HTTP session with DELETE);
 * rejects with exit 1 when forwarding to the daemon failed while stdin was still open.
 */
export async function runStdioBridge(o: StdioOptions): Promise<void> {
  let url: URL;
  try {
    url = agentUrl(o.url, o.perimeter, o.branch);
  } catch {
    throw new CliError(`invalid URL: ${o.url}`, 2);
  }
  await preflight(url, o.key);
  const local = new StdioServerTransport(o.stdin as never, o.stdout as never);
  const remote = new StreamableHTTPClientTransport(url, {
    requestInit: { headers: o.key ? { authorization: `Bearer ${o.key}` } : {} },
  });

  let done!: () => void;
  const finished = new Promise<void>((r) => (done = r));
  let closing = false;
  let failed = false;
  // Once stdin has closed, requests still in flight are abandoned on purpose: their failures are not errors.
  const sendLocal = (msg: JSONRPCMessage) => local.send(msg).catch(() => undefined);
  const shutdown = async () => {
    if (closing) return;
    closing = true;
    await remote.terminateSession().catch(() => undefined);
    await remote.close().catch(() => undefined);
    done();
  };

  local.onmessage = (msg: JSONRPCMessage) => {
    remote.send(msg).catch((e: unknown) => {
      if (closing) return;
      failed = true;
      const why = reachable(e, url);
      // Answer a failed request so the client does not wait forever; the message says what went wrong.
      if ('id' in msg && 'method' in msg)
        void sendLocal({ jsonrpc: '2.0', id: msg.id, error: { code: -32603, message: why } });
      o.err(`git-blinder stdio: ${why}`);
    });
  };
  remote.onmessage = (msg) => void sendLocal(msg as JSONRPCMessage);
  remote.onerror = (e) => {
    if (!closing) o.err(`git-blinder stdio: ${reachable(e, url)}`);
  };
  local.onclose = () => void shutdown();
  remote.onclose = () => void local.close();

  await remote.start();
  await local.start();
  (o.stdin ?? process.stdin).once('end', () => void shutdown());
  await finished;
  if (failed) throw new CliError('', 1);
}

/** One line for a forwarding failure: an unreachable daemon is named as such, anything else keeps its message only. */
function reachable(e: unknown, url: URL): string {
  const message = e instanceof Error ? e.message : String(e);
  const cause =
    e instanceof Error && e.cause instanceof Error
      ? `${e.cause.message} ${(e.cause as NodeJS.ErrnoException).code ?? ''}`
      : '';
  if (/fetch failed|ECONNREFUSED|ECONNRESET|ENOTFOUND|socket hang up/i.test(`${message} ${cause}`))
    return `cannot reach git-blinder at ${url.origin}: is \`serve\` running?`;
  return `git-blinder daemon at ${url.origin}: ${message}`;
}
