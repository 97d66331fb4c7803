import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import type { JSONRPCMessage } from '@modelcontextprotocol/server';

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
 * A stdio MCP server that forwards every message to the daemon's perimeter URL and back, unchanged: the daemon's
 * core decides, the bridge only carries. Resolves when stdin closes (after ending the HTTP session with DELETE).
 */
export async function runStdioBridge(o: StdioOptions): Promise<void> {
  const url = agentUrl(o.url, o.perimeter, o.branch);
  const local = new StdioServerTransport(o.stdin as never, o.stdout as never);
  const remote = new StreamableHTTPClientTransport(url, {
    requestInit: { headers: o.key ? { authorization: `Bearer ${o.key}` } : {} },
  });

  let done!: () => void;
  const finished = new Promise<void>((r) => (done = r));
  let closing = false;
  const shutdown = async () => {
    if (closing) return;
    closing = true;
    await remote.terminateSession().catch(() => undefined);
    await remote.close().catch(() => undefined);
    done();
  };

  local.onmessage = (msg: JSONRPCMessage) => {
    remote.send(msg).catch((e: Error) => {
      // Answer a failed request so the client does not wait forever; the message says what the daemon said.
      if ('id' in msg && 'method' in msg) {
        void local.send({ jsonrpc: '2.0', id: msg.id, error: { code: -32603, message: `git-blinder daemon at ${url.origin}: ${e.message}` } });
      }
      o.err(`git-blinder stdio: forwarding failed: ${e.message}`);
    });
  };
  remote.onmessage = (msg) => void local.send(msg as JSONRPCMessage);
  remote.onerror = (e) => o.err(`git-blinder stdio: ${e.message}`);
  local.onclose = () => void shutdown();
  remote.onclose = () => void local.close();

  await remote.start();
  await local.start();
  (o.stdin ?? process.stdin).once('end', () => void shutdown());
  await finished;
}
