import { DEFAULT_MAX_OPEN_PULLS, pullBases, type Limits, type Perimeter } from './perimeter.js';
import { compilePrivacy, withPrivacy } from './privacy.js';
import { compileProtected } from './protected.js';
import { fail, ok, type Result } from './result.js';
import { scopeOf, UNRESTRICTED, type Scope } from './scope.js';

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
  /** The perimeter's pull-request policy (bases resolved); absent = no PR tools. */
  readonly pulls?: PullsPolicy;
}

/** A perimeter's pull-request policy as a binding carries it: bases resolved (the default first), defaults applied. */
export interface PullsPolicy {
  /** Bases a PR may target, each an allowlisted branch; the first is the default. */
  readonly bases: readonly string[];
  readonly draft: boolean;
  readonly maxOpen: number;
  /** False: no get_pull_request_status. */
  readonly ci: boolean;
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
    ...(perimeter.pulls ? { pulls: pullsPolicy(perimeter) } : {}),
  });
}

/** The binding's view of `pulls`: a base no longer allowlisted is dropped (the allowlist is the authority). */
function pullsPolicy(perimeter: Perimeter): PullsPolicy {
  const p = perimeter.pulls ?? {};
  return {
    bases: pullBases(perimeter).filter((b) => perimeter.branches.includes(b)),
    draft: p.draft ?? true,
    maxOpen: p.max_open ?? DEFAULT_MAX_OPEN_PULLS,
    ci: p.ci ?? true,
  };
}

/** The surfaces a tool may be listed on: `agent` (a perimeter's URL), `root` (the operator's `/mcp/root`). */
export type Surface = 'agent' | 'root';

/**
 * What an agent binding must have for a tool to be listed there: `worktree` (the bound branch is checked out),
 * `proposals` (writes wait for a person), `pulls` (the perimeter sets `pulls`), `ci` (`pulls` without `ci: false`),
 * `write` (the perimeter has a write scope: presence and leases, which only matter to an agent that can collide).
 */
export type Requirement = 'worktree' | 'proposals' | 'pulls' | 'ci' | 'write';

/** How a tool declares where it is listed (on the tool object; read only by isExposed). */
export interface Exposure {
  readonly name: string;
  readonly surfaces: readonly Surface[];
  readonly requires?: Requirement;
  /** An alias is an opt-in: listed only where the perimeter's `tools` names it. */
  readonly aliasOf?: string;
}

/**
 * The one table of requirements: when an agent binding meets each, and the tool whose grant also grants the
 * tools that need it (proposal follow-ups come with the write tool that proposes: an agent can always follow up).
 */
const REQUIREMENTS: { readonly [R in Requirement]: { met(b: AgentBinding): boolean; grantedWith?: string } } = {
  worktree: { met: (b) => b.worktree === true },
  // Only where writes wait for approval (push_files in approval mode, or a working tree, whose proposals always wait).
  proposals: { met: (b) => b.approval.push_files === 'required' || b.worktree === true, grantedWith: 'push_files' },
  pulls: { met: (b) => b.pulls !== undefined },
  ci: { met: (b) => b.pulls !== undefined && b.pulls.ci },
  write: { met: (b) => b.writeGlobs.length > 0, grantedWith: 'push_files' },
};

/**
 * True when the tool appears on this binding's surface. One ordered decision: the surface, then an alias's opt-in,
 * then the tool's requirement, then the perimeter's grant. A tool that fails any step is as unknown as one that does
 * not exist.
 */
export function isExposed(binding: Binding, tool: Exposure): boolean {
  if (!tool.surfaces.includes(binding.surface)) return false;
  if (binding.surface === 'root') return true;
  // An alias is an opt-in of the perimeter (its `tools` names it): the catalogue never lists it, so a default
  // tools/list does not grow for clients that do not need fixed names.
  if (tool.aliasOf !== undefined) return binding.granted?.has(tool.name) === true;
  const requirement = tool.requires === undefined ? undefined : REQUIREMENTS[tool.requires];
  if (requirement !== undefined && !requirement.met(binding)) return false;
  const { granted } = binding;
  return (
    granted === undefined ||
    granted.has(tool.name) ||
    (requirement?.grantedWith !== undefined && granted.has(requirement.grantedWith))
  );
}
