import { McpServer } from '@modelcontextprotocol/server';
import { isExposed, type Binding } from '../core/index.js';
import { ALL_TOOLS } from '../registry/index.js';
import { invoke, type InvokeDeps } from './invoke.js';

export const SERVER_NAME = 'git-blinder';

export interface SessionServerOptions {
  /** Resolves the binding at each call (perimeters and allowlists can change while a session is open). */
  readonly resolve: () => Binding | undefined;
  readonly deps: InvokeDeps;
  readonly version: string;
}

/**
 * Builds one MCP server for one session or one stateless request; never shared between clients.
 * Only the tools exposed on this binding are registered, so an ungranted tool is exactly as unknown as a tool that
 * does not exist (the SDK answers both with the same JSON-RPC error).
 */
export function createSessionServer(opts: SessionServerOptions): McpServer {
  const binding = opts.resolve();
  const server = new McpServer(
    { name: SERVER_NAME, version: opts.version },
    {
      instructions:
        binding?.surface === 'agent'
          ? `You work inside one perimeter of a repository, on branch "${binding.branch}". Paths outside it do not exist for you; writes outside it are refused.`
          : 'Operator surface: every repository and branch, unfiltered. Never connect an agent here.',
    },
  );
  if (binding === undefined) return server;
  const surface = binding.surface;
  for (const tool of ALL_TOOLS) {
    if (!isExposed(binding, tool)) continue;
    server.registerTool(
      tool.name,
      {
        title: tool.annotations.title,
        description: tool.description,
        inputSchema: surface === 'root' ? tool.rootInput : tool.agentInput,
        outputSchema: tool.output,
        annotations: { ...tool.annotations },
      },
      async (args: unknown, ctx) => {
        return invoke(tool, opts.resolve(), args, opts.deps, declaredClient(server, ctx.mcpReq._meta));
      },
    );
  }
  return server;
}

/** The client's self-declared name (2025 handshake or 2026 per-request envelope). Informational, never authorization. */
function declaredClient(server: McpServer, meta: unknown): string | undefined {
  const legacy = server.server.getClientVersion()?.name;
  if (legacy) return legacy.slice(0, 100);
  const info = (meta as Record<string, unknown> | undefined)?.['io.modelcontextprotocol/clientInfo'];
  const name = (info as { name?: unknown } | undefined)?.name;
  return typeof name === 'string' ? name.slice(0, 100) : undefined;
}
