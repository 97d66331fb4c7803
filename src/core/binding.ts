import type { Perimeter } from './perimeter.js';
import { fail, ok, type Result } from './result.js';
import { scopeOf, UNRESTRICTED, type Scope } from './scope.js';

/** Tools that reveal refs: never on an agent surface, whatever the perimeter grants. */
export const ROOT_ONLY_TOOLS: readonly string[] = ['list_branches', 'compare'];

/** An agent connection: one perimeter, one allowlisted branch, fixed by the URL. */
export interface AgentBinding {
  readonly surface: 'agent';
  readonly perimeterId: string;
  readonly repo: string;
  readonly branch: string;
  /** Tool names granted by the perimeter, or undefined for "the agent catalogue". */
  readonly granted: ReadonlySet<string> | undefined;
  readonly scope: Scope;
  /** The perimeter's read globs, for deriving history prefixes. */
  readonly readGlobs: readonly string[];
}

/** The operator surface (`/mcp/root`): unfiltered, repo and ref come from the arguments. */
export interface RootBinding {
  readonly surface: 'root';
  readonly scope: Scope;
}

export type Binding = AgentBinding | RootBinding;

export const ROOT_BINDING: RootBinding = { surface: 'root', scope: UNRESTRICTED };

/**
 * Binds a perimeter to a branch. A branch outside the allowlist is `not_found`, like an unknown perimeter:
 * the caller must answer both the same way.
 */
export function bindAgent(perimeter: Perimeter, branch: string | undefined): Result<AgentBinding, 'not_found'> {
  const bound = branch ?? perimeter.default_branch;
  if (!perimeter.branches.includes(bound)) return fail('not_found', 'not found');
  return ok({
    surface: 'agent',
    perimeterId: perimeter.id,
    repo: perimeter.repo,
    branch: bound,
    granted: perimeter.tools ? new Set(perimeter.tools) : undefined,
    scope: scopeOf(perimeter),
    readGlobs: perimeter.read,
  });
}

/** True when the tool appears on this binding's surface. */
export function isExposed(binding: Binding, tool: { name: string; agentSurface: boolean }): boolean {
  if (binding.surface === 'root') return true;
  if (!tool.agentSurface || ROOT_ONLY_TOOLS.includes(tool.name)) return false;
  return binding.granted === undefined || binding.granted.has(tool.name);
}
