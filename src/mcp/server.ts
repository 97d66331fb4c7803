import { McpServer } from '@modelcontextprotocol/server';
import { isExposed, type AgentBinding, type Binding } from '../core/index.js';
import { ALL_TOOLS, type AnyTool } from '../registry/index.js';
import { invoke, type InvokeDeps } from './invoke.js';
import { toCallResult } from './result.js';

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
      instructions: binding === undefined ? 'Not found.' : binding.surface === 'agent' ? agentInstructions(binding) : ROOT_INSTRUCTIONS,
    },
  );
  if (binding === undefined) return server;
  const surface = binding.surface;
  for (const tool of ALL_TOOLS) {
    if (!isExposed(binding, tool)) continue;
    server.registerTool(
      tool.name,
      {
        // No title: tools/list is paid in every agent's context and the name already says it (the title is a UI nicety).
        description: tool.description,
        inputSchema: surface === 'root' ? tool.published.rootInput : ((binding.worktree === true ? tool.published.worktreeInput : undefined) ?? tool.published.agentInput),
        outputSchema: tool.published.output,
        annotations: publishedAnnotations(tool),
      },
      async (args: unknown, ctx) => {
        return toCallResult(await invoke(tool, opts.resolve(), args, opts.deps, declaredClient(server, ctx.mcpReq._meta)));
      },
    );
  }
  return server;
}

/**
 * The hints tools/list carries. The title is already the tool's own `title`; on a read-only tool the protocol gives
 * `destructiveHint` and `idempotentHint` no meaning, so they are left out there (every other hint is explicit).
 */
function publishedAnnotations(tool: AnyTool): Record<string, boolean> {
  const a = tool.annotations;
  return a.readOnlyHint
    ? { readOnlyHint: true, openWorldHint: a.openWorldHint }
    : { readOnlyHint: false, destructiveHint: a.destructiveHint, idempotentHint: a.idempotentHint, openWorldHint: a.openWorldHint };
}

const ROOT_INSTRUCTIONS = 'Operator surface: every registered repository and branch, unfiltered. Never connect an agent here.';

const list = (globs: readonly string[]): string => globs.map((g) => JSON.stringify(g)).join(', ');

/**
 * What an agent is told at initialize: its own window (branch, read and write globs, limits) and nothing about any
 * other perimeter. Knowing its write scope up front spares it learning the scope by being refused.
 */
export function agentInstructions(b: AgentBinding): string {
  const lines = [
    `You work inside one perimeter of a repository, on branch "${b.branch}" (fixed by your URL).`,
    `You can read: ${b.readGlobs.length ? list(b.readGlobs) : 'nothing'}. Anything else does not exist for you.`,
    b.writeGlobs.length ? `You can write (push_files): ${list(b.writeGlobs)}; writes elsewhere are refused.` : 'You cannot write: this perimeter is read-only.',
    'Privacy zones (secrets such as .env files, private keys and credential files) are always hidden, even where you can read.',
  ];
  const l = b.limits;
  const limits = [
    l.calls_per_minute === undefined ? undefined : `${l.calls_per_minute} calls per minute`,
    l.commits_per_hour === undefined ? undefined : `${l.commits_per_hour} commits per hour`,
    l.files_per_commit === undefined ? undefined : `${l.files_per_commit} files per commit`,
    l.max_file_bytes === undefined ? undefined : `${l.max_file_bytes} bytes per file`,
  ].filter((x): x is string => x !== undefined);
  if (limits.length) lines.push(`Limits: ${limits.join(', ')}.`);
  return lines.join('\n');
}

/** The client's self-declared name (2025 handshake or 2026 per-request envelope). Informational, never authorization. */
function declaredClient(server: McpServer, meta: unknown): string | undefined {
  const legacy = server.server.getClientVersion()?.name;
  if (legacy) return legacy.slice(0, 100);
  const info = (meta as Record<string, unknown> | undefined)?.['io.modelcontextprotocol/clientInfo'];
  const name = (info as { name?: unknown } | undefined)?.name;
  return typeof name === 'string' ? name.slice(0, 100) : undefined;
}
