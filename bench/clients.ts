// A real SDK MCP client (2025-era session over Streamable HTTP), as agents use it.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

export interface AgentClient {
  readonly client: Client;
  /** Calls a tool; returns the raw MCP result. */
  call(name: string, args: Record<string, unknown>): Promise<any>;
  /** Leaves: with `terminate` the session is DELETEd first (most real clients never do). */
  close(terminate?: boolean): Promise<void>;
}

/** Connects to an MCP URL with a legacy session, like the test harness and most agents today. */
export async function connectAgent(url: string, name = 'bench-agent'): Promise<AgentClient> {
  const client = new Client({ name, version: '1.0.0' }, { versionNegotiation: { mode: 'legacy' } });
  const transport = new StreamableHTTPClientTransport(new URL(url));
  await client.connect(transport);
  return {
    client,
    call: (toolName, args) => client.callTool({ name: toolName, arguments: args }),
    close: async (terminate = true) => {
      if (terminate && transport.sessionId) await transport.terminateSession().catch(() => undefined);
      await client.close().catch(() => undefined);
    },
  };
}
