import { ProtocolError, ProtocolErrorCode, Server } from '@modelcontextprotocol/server';
import type { AgentBinding, Binding } from '../core/index.js';
import { invoke, type InvokeDeps } from './invoke.js';
import { toCallResult, type CallResult } from './result.js';
import type { Toolset } from './toolset.js';

export const SERVER_NAME = 'git-blinder';

export interface SessionServerOptions {
  /** Resolves the binding at each call (perimeters and allowlists can change while a session is open). */
  readonly resolve: () => Binding | undefined;
  readonly deps: InvokeDeps;
  readonly version: string;
  /** The shared toolset of a binding (see toolset.ts): a session keeps a reference, never a copy. */
  readonly toolsetOf: (binding: Binding) => Toolset;
  /** The agent id of the key that opened this session or request (absent on the operator surface). */
  readonly agent?: string;
}

/** A tool-level failure in the shape the SDK's McpServer gives it, so clients see the same bytes as before. */
const toolError = (text: string): CallResult => ({ content: [{ type: 'text', text }], isError: true });

/** Issues as the SDK formats them: `path.to.field: message`, comma-separated. */
function formatIssues(
  issues: readonly { message: string; path?: readonly (PropertyKey | { key: PropertyKey })[] | undefined }[],
): string {
  return issues
    .map((i) =>
      i.path?.length
        ? `${i.path.map((p) => String(typeof p === 'object' ? p.key : p)).join('.')}: ${i.message}`
        : i.message,
    )
    .join(', ');
}

/**
 * Builds the MCP server of one session or one stateless request; never shared between clients.
 * It is the SDK's low-level `Server` with two handlers over a shared toolset: tools/list hands out the entries built
 * once for this surface and grant set, tools/call validates against the shared schema. Only the tools exposed on
 * this binding are served, so an ungranted tool is exactly as unknown as a tool that does not exist (the same
 * JSON-RPC error for both).
 */
export function createSessionServer(opts: SessionServerOptions): Server {
  const binding = opts.resolve();
  const instructions =
    binding === undefined ? 'Not found.' : binding.surface === 'agent' ? agentInstructions(binding) : ROOT_INSTRUCTIONS;
  const toolset = binding === undefined ? undefined : opts.toolsetOf(binding);
  if (toolset === undefined || toolset.byName.size === 0)
    return new Server({ name: SERVER_NAME, version: opts.version }, { instructions });
  const server = new Server(
    { name: SERVER_NAME, version: opts.version },
    { instructions, capabilities: { tools: { listChanged: true } } },
  );
  server.setRequestHandler('tools/list', () => ({ tools: toolset.listing as never }));
  server.setRequestHandler('tools/call', async (request, ctx) => {
    const name = request.params.name;
    const served = toolset.byName.get(name);
    if (served === undefined) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Tool ${name} not found`);
    try {
      const parsed = await served.input['~standard'].validate(request.params.arguments ?? {});
      if (parsed.issues)
        return toolError(`Input validation error: Invalid arguments for tool ${name}: ${formatIssues(parsed.issues)}`);
      const client = declaredClient(server, ctx.mcpReq._meta);
      const outcome = await invoke(served.tool, opts.resolve(), parsed.value, opts.deps, {
        ...(opts.agent === undefined ? {} : { agent: opts.agent }),
        ...(client === undefined ? {} : { client }),
      });
      return server.projectCallToolResult(toCallResult(outcome), served.outputJson);
    } catch (err) {
      return toolError(err instanceof Error ? err.message : String(err));
    }
  });
  return server;
}

const ROOT_INSTRUCTIONS =
  'Operator surface: every registered repository and branch, unfiltered. Never connect an agent here.';

const list = (globs: readonly string[]): string => globs.map((g) => JSON.stringify(g)).join(', ');

/**
 * What an agent is told at initialize: its own window (branch, read and write globs, limits) and nothing about any
 * other perimeter. Knowing its write scope up front spares it learning the scope by being refused.
 */
export function agentInstructions(b: AgentBinding): string {
  const lines = [
    `You work inside one perimeter of a repository, on branch "${b.branch}" (fixed by your URL).`,
    `You can read: ${b.readGlobs.length ? list(b.readGlobs) : 'nothing'}. Anything else does not exist for you.`,
    b.writeGlobs.length
      ? `You can write (push_files): ${list(b.writeGlobs)}; writes elsewhere are refused.`
      : 'You cannot write: this perimeter is read-only.',
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
function declaredClient(server: Server, meta: unknown): string | undefined {
  const legacy = server.getClientVersion()?.name;
  if (legacy) return legacy.slice(0, 100);
  const info = (meta as Record<string, unknown> | undefined)?.['io.modelcontextprotocol/clientInfo'];
  const name = (info as { name?: unknown } | undefined)?.name;
  return typeof name === 'string' ? name.slice(0, 100) : undefined;
}
