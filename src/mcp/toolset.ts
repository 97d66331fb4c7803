// What a session serves, built once per (surface, grant set) and shared by every session and stateless request that
// has it: the tools/list answer and each tool's input validator and advertised output schema. A session holds a
// reference to one of these, never its own copy of the registry.
import { isExposed, type Binding } from '../core/index.js';
import { ALL_TOOLS, type AnyTool } from '../registry/index.js';

/** One tool as a session serves it. */
export interface ServedTool {
  readonly tool: AnyTool;
  /** The schema tools/call arguments are validated against (the surface's input schema). */
  readonly input: AnyTool['agentInput'];
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
 * A zod schema as JSON Schema 2020-12, the way the SDK's McpServer converts it for tools/list (through the Standard
 * Schema `jsonSchema` hook, object type first on inputs), so switching to the low-level server changed no byte.
 */
function jsonSchemaOf(schema: AnyTool['output'], io: 'input' | 'output'): Record<string, unknown> {
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

/** A tool's tools/list entry, in the key order the SDK's McpServer uses (clients and snapshots see the same bytes). */
function listed(tool: AnyTool, surface: Surface): { entry: Record<string, unknown>; outputJson: Record<string, unknown> } {
  const outputJson = jsonSchemaOf(tool.output, 'output');
  const entry = {
    name: tool.name,
    title: tool.annotations.title,
    description: tool.description,
    inputSchema: jsonSchemaOf(surface === 'root' ? tool.rootInput : tool.agentInput, 'input'),
    annotations: { ...tool.annotations },
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
  const entryOf = (tool: AnyTool, surface: Surface) => {
    const k = `${surface}\u0000${tool.name}`;
    let e = entries.get(k);
    if (e === undefined) entries.set(k, (e = listed(tool, surface)));
    return e;
  };
  return (binding) => {
    const exposed = tools.filter((t) => isExposed(binding, t));
    const key = `${binding.surface}\u0000${exposed.map((t) => t.name).join('\u0000')}`;
    const known = sets.get(key);
    if (known) return known;
    const byName = new Map<string, ServedTool>();
    const listing: Readonly<Record<string, unknown>>[] = [];
    for (const tool of exposed) {
      const { entry, outputJson } = entryOf(tool, binding.surface);
      byName.set(tool.name, { tool, input: binding.surface === 'root' ? tool.rootInput : tool.agentInput, outputJson });
      listing.push(entry);
    }
    const set: Toolset = { byName, listing: Object.freeze(listing) };
    if (sets.size >= MAX_TOOLSETS) sets.clear();
    sets.set(key, set);
    return set;
  };
}
