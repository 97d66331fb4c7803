// Real MCP clients (the SDK's Client over Streamable HTTP) connected to agent URLs, in either protocol era.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

/** 'legacy' = the 2025 initialize/session handshake; 'auto' = probe, and the 2026-07-28 era when the server offers it. */
export type Era = 'legacy' | 'auto';

export interface ToolAnswer {
  readonly isError: boolean;
  readonly text: string;
  readonly structured: Record<string, unknown> | undefined;
  /** The whole result as received, for byte comparisons. */
  readonly raw: unknown;
}

export interface Agent {
  readonly name: string;
  readonly path: string;
  readonly era: Era;
  /** The HTTP transport (undefined for an agent behind the stdio bridge). */
  readonly transport: StreamableHTTPClientTransport | undefined;
  tools(): Promise<string[]>;
  call(tool: string, args?: Record<string, unknown>): Promise<ToolAnswer>;
  close(): Promise<void>;
}

/** Wraps a connected client as an Agent. */
export function asAgent(
  name: string,
  path: string,
  era: Era,
  client: Client,
  transport: StreamableHTTPClientTransport | undefined,
  onClose: () => Promise<void>,
): Agent {
  let closed = false;
  return {
    name,
    path,
    era,
    transport,
    async tools() {
      const r = await client.listTools();
      return r.tools.map((t) => t.name);
    },
    async call(tool, args = {}) {
      const r = (await client.callTool({ name: tool, arguments: args })) as {
        isError?: boolean;
        content?: { type: string; text?: string }[];
        structuredContent?: Record<string, unknown>;
      };
      return {
        isError: r.isError === true,
        text: (r.content ?? []).map((c) => c.text ?? '').join('\n'),
        structured: r.structuredContent,
        raw: r,
      };
    },
    async close() {
      if (closed) return;
      closed = true;
      await onClose();
    },
  };
}

/** Connects a real MCP client to `base + path`. */
export async function connectAgent(
  name: string,
  base: string,
  path: string,
  era: Era,
  bearer?: string,
): Promise<Agent> {
  const client = new Client({ name: `agent-${name}`, version: '1.0.0' }, { versionNegotiation: { mode: era } });
  const transport = new StreamableHTTPClientTransport(new URL(base + path), {
    requestInit: { headers: bearer === undefined ? {} : { authorization: `Bearer ${bearer}` } },
  });
  await client.connect(transport);
  return asAgent(name, path, era, client, transport, async () => {
    if (transport.sessionId) await transport.terminateSession().catch(() => undefined);
    await client.close().catch(() => undefined);
  });
}
