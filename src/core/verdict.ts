import { assertNever } from './result.js';
import { isExposed, type Binding, type Requirement, type Surface } from './binding.js';
import { pathProblem } from './path.js';
import { canReadNormalized } from './scope.js';

/** How a path in a tool's arguments is used. */
export type PathRole = 'file' | 'dir' | 'write';

/** One path the policy must judge before any upstream call. */
export interface PathRef {
  readonly path: unknown;
  readonly role: PathRole;
}

/** Where a call lands upstream. Agents never choose it: the binding does. */
export interface Target {
  readonly repo: string;
  readonly ref: string;
}

/** The policy-relevant half of a tool declaration. */
export interface ToolPolicy<A> {
  readonly name: string;
  readonly access: 'read' | 'write';
  /** Where the tool may be listed: `agent` surfaces, the operator's `root`, or both (see isExposed). */
  readonly surfaces: readonly Surface[];
  /** What an agent binding must have for the tool to be listed there (see isExposed's table). */
  readonly requires?: Requirement;
  /**
   * The tool this one is another name for (`search` → `search_code`, `fetch` → `get_file`, for clients that only
   * call fixed names): same gate and core, listed only on agent surfaces whose perimeter names it (see isExposed).
   */
  readonly aliasOf?: string;
  /**
   * `all`: one hidden path makes the whole call invisible (single-object reads).
   * `each`: hidden paths are answered one by one as missing (multi-file reads).
   */
  readonly pathMode: 'all' | 'each';
  /** Every path in the arguments. A tool that cannot say this is not exposable. */
  paths(args: A): readonly PathRef[];
  /** The operator surface takes repo and ref from the arguments. */
  rootTarget(args: A): Target;
}

export type Verdict =
  | { kind: 'allow'; target: Target; hidden: ReadonlySet<string> }
  | { kind: 'deny'; reason: string }
  | { kind: 'invisible' }
  | { kind: 'invalid'; message: string };

const NONE: ReadonlySet<string> = new Set();

/**
 * The one policy decision. Pure: the binding (perimeter × branch), the tool and its arguments in; a verdict out.
 * Order matters: exposure first (an ungranted tool is invisible whatever its arguments), then syntax, then writes
 * (refused as a whole, before anything is read or written), then reads.
 */
export function decide<A>(binding: Binding, tool: ToolPolicy<A>, args: A): Verdict {
  if (!isExposed(binding, tool)) return { kind: 'invisible' };

  const refs = tool.paths(args);
  // Hot path (a read with privacy zones must cost well under a microsecond): one pass validates, allocating nothing;
  // an accepted path is the agent's string itself (normalizePath never rewrites), so the passes below judge
  // `ref.path` as it is, through the scope's form for normalized paths.
  let hasWrite = false;
  for (const ref of refs) {
    const problem = pathProblem(ref.path);
    if (problem !== undefined) return { kind: 'invalid', message: problem };
    if (ref.role === 'write') hasWrite = true;
  }

  if (binding.surface === 'root') return { kind: 'allow', target: tool.rootTarget(args), hidden: NONE };
  const target = { repo: binding.repo, ref: binding.branch };

  const { scope } = binding;
  if (hasWrite) {
    const writes = refs.filter((p) => p.role === 'write').map((p) => p.path as string);
    const refused = writes.filter((p) => !scope.canWrite(p));
    if (refused.length > 0) {
      const list = refused.map((p) => `"${p}"`).join(', ');
      return {
        kind: 'deny',
        reason: `${tool.name} refused: ${list} ${refused.length === 1 ? 'is' : 'are'} outside this perimeter's write scope. Nothing was written; change only files you are allowed to write.`,
      };
    }
    for (const guard of binding.writeGuards) {
      const refusal = guard(writes);
      if (refusal !== undefined) return { kind: 'deny', reason: refusal };
    }
  }

  let hidden: Set<string> | undefined;
  for (const ref of refs) {
    const path = ref.path as string;
    switch (ref.role) {
      case 'write':
        break;
      case 'file':
        if (!canReadNormalized(scope, path)) (hidden ??= new Set()).add(path);
        break;
      case 'dir':
        if (!scope.canList(path)) (hidden ??= new Set()).add(path);
        break;
      default:
        assertNever(ref.role, 'path role');
    }
  }
  if (hidden === undefined) return { kind: 'allow', target, hidden: NONE };
  if (tool.pathMode === 'all') return { kind: 'invisible' };
  return { kind: 'allow', target, hidden };
}
