// The policy of a workspace proposal, judged on what the operation would touch (the preview's paths, a patch's
// header names) and on the revisions it names. Pure: the same judgement runs when the agent proposes and again, on
// the perimeter as it is then, when a person approves.
import type { WorkspaceStep } from './proposal-workspace.js';
import type { Scope } from './scope.js';

/** What the judgement needs of a binding (an agent binding has all of it). */
export interface WorkspacePolicy {
  readonly scope: Scope;
  readonly writeGuards: readonly ((paths: readonly string[]) => string | undefined)[];
}

const FULL_SHA = /^[0-9a-f]{40}([0-9a-f]{24})?$/;
const quote = (xs: readonly string[]) => xs.map((x) => `"${x}"`).join(', ');

/**
 * Refuses, in push_files' words, paths outside the write scope or protected paths the perimeter does not grant. A
 * preview also reports paths the agent cannot see (a merge that changes a hidden file): those are never named.
 */
export function workspacePathRefusal(
  tool: string,
  paths: readonly string[],
  policy: WorkspacePolicy,
): string | undefined {
  const outside = paths.filter((p) => !policy.scope.canWrite(p));
  const named = outside.filter((p) => policy.scope.canRead(p));
  if (named.length < outside.length) {
    return `${tool} refused: the operation would change paths outside this perimeter's window. Nothing was proposed.`;
  }
  if (outside.length > 0) {
    return `${tool} refused: ${quote(outside)} ${outside.length === 1 ? 'is' : 'are'} outside this perimeter's write scope. Nothing was proposed; change only files you are allowed to write.`;
  }
  for (const guard of policy.writeGuards) {
    const refusal = guard(paths);
    if (refusal !== undefined) return refusal;
  }
  return undefined;
}

/** Every revision a step names (a branch name or a full commit id): each must obey the read rule. */
export function stepRevisions(s: WorkspaceStep): string[] {
  switch (s.kind) {
    case 'merge':
      return [s.from];
    case 'rebase':
      return [s.onto];
    case 'reset':
      return [s.to];
    case 'branch':
      return [s.from];
    case 'commit':
    case 'patch':
    case 'discard':
    case 'push':
      return [];
    default: {
      const never: never = s;
      throw new Error(`unexpected workspace step ${JSON.stringify(never)}`);
    }
  }
}

/** The branch names a step reads from (a full commit id names no branch). */
export function stepBranches(s: WorkspaceStep): string[] {
  return stepRevisions(s).filter((rev) => !FULL_SHA.test(rev));
}

/** The kinds whose preview paths come from git (history, the remote), not from names the agent gave. */
export function derivesPaths(s: WorkspaceStep): boolean {
  switch (s.kind) {
    case 'merge':
    case 'rebase':
    case 'reset':
    case 'branch':
    case 'push':
      return true;
    case 'commit':
    case 'patch':
    case 'discard':
      return false;
    default: {
      const never: never = s;
      throw new Error(`unexpected workspace step ${JSON.stringify(never)}`);
    }
  }
}

/**
 * The paths judged when the agent proposes: every path it named, and of the paths git derived (a merge's, a
 * reset's, a dirty file a hard reset would drop) only those it can read, so the answer is a function of what it may
 * read. The rest (`deferred`, those it can neither read nor write) are judged at approval, in the operator's view.
 */
export function proposeTimePaths(
  s: WorkspaceStep,
  paths: readonly string[],
  scope: Scope,
): { judged: string[]; deferred: string[] } {
  if (!derivesPaths(s)) return { judged: [...paths], deferred: [] };
  return {
    judged: paths.filter((p) => scope.canRead(p)),
    deferred: paths.filter((p) => !scope.canRead(p) && !scope.canWrite(p)),
  };
}

/** Refuses a step that names a branch outside the allowlist, or creates one that exists in it already. */
export function stepRefRefusal(tool: string, s: WorkspaceStep, allowlist: readonly string[]): string | undefined {
  const off = stepBranches(s).filter((b) => !allowlist.includes(b));
  if (off.length > 0)
    return `${tool} refused: ${quote(off)} ${off.length === 1 ? 'is' : 'are'} not a branch of this perimeter. Nothing was proposed; name an allowlisted branch or a full commit id.`;
  if (s.kind === 'branch' && allowlist.includes(s.name))
    return `${tool} refused: branch "${s.name}" already exists in this perimeter. Nothing was proposed.`;
  return undefined;
}
