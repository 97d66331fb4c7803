// What a session serves, built once per (surface, grant set) and shared by every session and stateless request that
// has it: the tools/list answer and each tool's input validator and advertised output schema. A session holds a
// reference to one of these, never its own copy of the registry.
import { isExposed, type Binding } from '../core/index.js';
import { ALL_TOOLS, type AnyTool } from '../registry/index.js';

/** One tool as a session serves it. */
export interface ServedTool {
  readonly tool: AnyTool;
  /** The schema tools/call arguments are validated against (the surface's published input: zod's checks). */
  readonly input: AnyTool['published']['agentInput'];
  /** The output schema as tools/list advertises it (the SDK's result projection needs the same object). */
  readonly outputJson: Record<string, unknown>;
}

/** The tools one kind of binding sees, with their tools/list entries serialised once. */
export interface Toolset {
  readonly byName: ReadonlyMap<string, ServedTool>;
  /** tools/list entries in registry order; deeply frozen, because every session hands out the same objects. */
  readonly listing: readonly Readonly<Record<string, unknown>>[];
}

type Surface = Binding['surface'];

/**
 * A published schema as the SDK's McpServer puts it in tools/list (through the Standard Schema `jsonSchema` hook,
 * object type first on inputs), so switching to the low-level server changed no byte.
 */
function jsonSchemaOf(schema: AnyTool['published']['output'], io: 'input' | 'output'): Record<string, unknown> {
  const json = schema['~standard'].jsonSchema[io]({ target: 'draft-2020-12' });
  if (io === 'output') {
    // Broken invariant, not a user problem: the registry tests keep every output schema an object.
    if (json.type !== 'object') throw new Error('tool output schemas must describe objects');
    return json;
  }
  return { type: 'object', ...json };
}

function deepFreeze<T>(v: T): T {
  if (v !== null && typeof v === 'object' && !Object.isFrozen(v)) {
    Object.freeze(v);
    for (const x of Object.values(v)) deepFreeze(x);
  }
  return v;
}

/**
 * The hints tools/list carries. The title is already the tool's own `title`; on a read-only tool the protocol gives
 * `destructiveHint` and `idempotentHint` no meaning, so they are left out there (every other hint is explicit).
 */
function publishedAnnotations(tool: AnyTool): Record<string, boolean> {
  const a = tool.annotations;
  return a.readOnlyHint
    ? { readOnlyHint: true, openWorldHint: a.openWorldHint }
    : {
        readOnlyHint: false,
        destructiveHint: a.destructiveHint,
        idempotentHint: a.idempotentHint,
        openWorldHint: a.openWorldHint,
      };
}

/**
 * A tool's tools/list entry, in the key order the SDK's McpServer uses (clients and snapshots see the same bytes).
 * No title: tools/list is paid in every agent's context and the name already says it (the title is a UI nicety).
 */
/** Which input schema a binding is shown: the operator's, an agent's, or an agent's on a checked-out branch. */
type View = Surface | 'worktree';

const viewOf = (binding: Binding): View =>
  binding.surface === 'root' ? 'root' : binding.worktree === true ? 'worktree' : 'agent';

/** The input schema of a tool in one view (working-tree options only where the branch is checked out). */
function inputOf(tool: AnyTool, view: View): AnyTool['published']['agentInput'] {
  if (view === 'root') return tool.published.rootInput;
  return view === 'worktree' ? (tool.published.worktreeInput ?? tool.published.agentInput) : tool.published.agentInput;
}

function listed(tool: AnyTool, surface: View): { entry: Record<string, unknown>; outputJson: Record<string, unknown> } {
  const outputJson = jsonSchemaOf(tool.published.output, 'output');
  const entry = {
    name: tool.name,
    description: tool.description,
    inputSchema: jsonSchemaOf(inputOf(tool, surface), 'input'),
    annotations: publishedAnnotations(tool),
    outputSchema: outputJson,
  };
  return { entry: deepFreeze(entry), outputJson };
}

/** Most grant sets a process keeps built at once; past it the memo starts over (they are cheap to rebuild). */
const MAX_TOOLSETS = 256;

/**
 * The toolset memo of one app: `toolsetOf(binding)` returns the same object for every binding with the same surface
 * and the same exposed tools. The JSON schemas of each tool are converted once per surface, whatever the grant sets.
 */
export function createToolsets(tools: readonly AnyTool[] = ALL_TOOLS): (binding: Binding) => Toolset {
  const entries = new Map<string, { entry: Record<string, unknown>; outputJson: Record<string, unknown> }>();
  const sets = new Map<string, Toolset>();
  // Bindings are immutable and the resolver hands out one object per perimeter, branch and store revision: a repeat
  // of the same object (every stateless request of an endpoint) skips re-running the exposure rule over every tool.
  const ofBinding = new WeakMap<Binding, Toolset>();
  const entryOf = (tool: AnyTool, surface: View) => {
    const k = `${surface}\u0000${tool.name}`;
    let e = entries.get(k);
    if (e === undefined) entries.set(k, (e = listed(tool, surface)));
    return e;
  };
  const build = (binding: Binding): Toolset => {
    const exposed = tools.filter((t) => isExposed(binding, t));
    const view = viewOf(binding);
    const key = `${view}\u0000${exposed.map((t) => t.name).join('\u0000')}`;
    const known = sets.get(key);
    if (known) return known;
    const byName = new Map<string, ServedTool>();
    const listing: Readonly<Record<string, unknown>>[] = [];
    for (const tool of exposed) {
      const { entry, outputJson } = entryOf(tool, view);
      byName.set(tool.name, { tool, input: inputOf(tool, view), outputJson });
      listing.push(entry);
    }
    const set: Toolset = { byName, listing: Object.freeze(listing) };
    if (sets.size >= MAX_TOOLSETS) sets.clear();
    sets.set(key, set);
    return set;
  };
  return (binding) => {
    let set = ofBinding.get(binding);
    if (set === undefined) ofBinding.set(binding, (set = build(binding)));
    return set;
  };
}
