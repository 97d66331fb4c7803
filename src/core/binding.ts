import type { Limits, Perimeter } from './perimeter.js';
import { compilePrivacy, withPrivacy } from './privacy.js';
import { compileProtected } from './protected.js';
import { fail, ok, type Result } from './result.js';
import { scopeOf, UNRESTRICTED, type Scope } from './scope.js';

/** Tools that reveal refs: never on an agent surface, whatever the perimeter grants. */
export const ROOT_ONLY_TOOLS: readonly string[] = ['list_branches', 'compare'];

/** Tools about an agent's own proposals: meaningless on the operator surface (operators use /api and the CLI). */
export const AGENT_ONLY_TOOLS: readonly string[] = ['proposal_status', 'proposal_cancel'];

/**
 * Presence and leases (issue 23 §2): agent-only, listed beside a write tool (an agent that cannot write has nothing to
 * collide with, and a perimeter without a write scope lists none of them).
 */
export const PRESENCE_TOOLS: readonly string[] = ['activity', 'lease_acquire', 'lease_release'];

/** The propose_* tools: agent requests held for a person, never operator tools (the operator writes directly). */
export const WORKSPACE_PROPOSE_TOOLS: readonly string[] = [
  'propose_commit',
  'propose_patch',
  'propose_discard',
  'propose_merge',
  'propose_rebase',
  'propose_reset',
  'propose_branch',
  'propose_push',
  'propose_plan',
];

/** An agent connection: one perimeter, one allowlisted branch, fixed by the URL. */
export interface AgentBinding {
  readonly surface: 'agent';
  readonly perimeterId: string;
  readonly repo: string;
  readonly branch: string;
  /** Every branch the perimeter allowlists (conflict_preflight may name them; nothing else is a branch here). */
  readonly branches: readonly string[];
  /**
   * True when the bound branch is checked out in a working tree of the repository (set by the composition from a
   * cached `git worktree list`): only then are the workspace tools listed.
   */
  readonly worktree?: boolean;
  /** Tool names granted by the perimeter, or undefined for "the agent catalogue". */
  readonly granted: ReadonlySet<string> | undefined;
  readonly scope: Scope;
  /** The perimeter's read globs, for deriving history prefixes (and the agent's own window in its instructions). */
  readonly readGlobs: readonly string[];
  /** The perimeter's write globs: told to the agent at initialize, so it does not learn its scope by being refused. */
  readonly writeGlobs: readonly string[];
  /** Checks run on the paths of a write after the write scope (protected paths); a message refuses the write. */
  readonly writeGuards: readonly ((paths: readonly string[]) => string | undefined)[];
  /** True for paths a write may only touch under an explicit grant (shown to approvers as a risk). */
  readonly isProtected: (path: string) => boolean;
  readonly allowSecrets: boolean;
  readonly allowBinary: boolean;
  readonly limits: Limits;
  /** Writes that become proposals instead of landing (an approved proposal is applied with `push_files: 'none'`). */
  readonly approval: { readonly push_files: 'none' | 'required' };
}

/** Server-wide additions to every perimeter's policy (they can only hide or protect more). */
export interface ServerPolicy {
  readonly privatePatterns?: readonly string[];
  readonly protectedPatterns?: readonly string[];
  /** Limits for perimeters that set none of their own. */
  readonly defaultLimits?: Limits;
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
export function bindAgent(
  perimeter: Perimeter,
  branch: string | undefined,
  server: ServerPolicy = {},
): Result<AgentBinding, 'not_found'> {
  const bound = branch ?? perimeter.default_branch;
  if (!perimeter.branches.includes(bound)) return fail('not_found', 'not found');
  const zones = compilePrivacy({ patterns: [...(server.privatePatterns ?? []), ...(perimeter.private ?? [])] });
  const protect = compileProtected({
    grants: perimeter.allow_protected ?? [],
    zones,
    patterns: server.protectedPatterns ?? [],
  });
  return ok({
    surface: 'agent',
    perimeterId: perimeter.id,
    repo: perimeter.repo,
    branch: bound,
    branches: [...perimeter.branches],
    granted: perimeter.tools ? new Set(perimeter.tools) : undefined,
    scope: withPrivacy(scopeOf(perimeter), zones, { writeGrant: protect.isGranted }),
    readGlobs: perimeter.read,
    writeGlobs: perimeter.write,
    writeGuards: [
      (paths) => {
        const c = protect.check(paths);
        return c.ok ? undefined : c.message;
      },
    ],
    isProtected: protect.isProtected,
    allowSecrets: perimeter.allow_secrets ?? false,
    allowBinary: perimeter.allow_binary ?? false,
    limits: { ...server.defaultLimits, ...perimeter.limits },
    approval: { push_files: perimeter.approval?.push_files ?? 'none' },
  });
}

/**
 * True when the tool appears on this binding's surface. A workspace tool appears on an agent surface only where the
 * bound branch is checked out; elsewhere it is as unknown as a tool that does not exist.
 */
export function isExposed(
  binding: Binding,
  tool: { name: string; agentSurface: boolean; requires?: 'worktree'; aliasOf?: string },
): boolean {
  // An alias is an opt-in of the perimeter (its `tools` names it): the catalogue and the operator surface, which has
  // the real tool, never list it, so a default tools/list does not grow for clients that do not need fixed names.
  if (tool.aliasOf !== undefined)
    return binding.surface === 'agent' && tool.agentSurface && binding.granted?.has(tool.name) === true;
  if (binding.surface === 'root')
    return (
      !AGENT_ONLY_TOOLS.includes(tool.name) &&
      !WORKSPACE_PROPOSE_TOOLS.includes(tool.name) &&
      !PRESENCE_TOOLS.includes(tool.name)
    );
  if (!tool.agentSurface || ROOT_ONLY_TOOLS.includes(tool.name)) return false;
  if (tool.requires === 'worktree' && binding.worktree !== true) return false;
  // Only where writes wait for approval (push_files in approval mode, or a working tree, whose proposals always
  // wait), and then always with a write tool: an agent can follow up on what it proposed.
  if (AGENT_ONLY_TOOLS.includes(tool.name)) {
    return (
      (binding.approval.push_files === 'required' || binding.worktree === true) &&
      (binding.granted === undefined || binding.granted.has('push_files') || binding.granted.has(tool.name))
    );
  }
  if (PRESENCE_TOOLS.includes(tool.name)) {
    if (binding.writeGlobs.length === 0) return false;
    return binding.granted === undefined || binding.granted.has('push_files') || binding.granted.has(tool.name);
  }
  return binding.granted === undefined || binding.granted.has(tool.name);
}
