// Risk flags and cross-proposal facts the server computes for the approver. Pure: from stored proposals only.
import { workspaceSteps, type Proposal } from '../../core/index.js';
import { hasHidden } from './escape.js';

/** One flag on a proposal; `bad` ones are drawn in red. */
export interface RiskFlag {
  readonly label: string;
  readonly bad: boolean;
}

/** Pending proposals on the same repository and branch that touch one of the same paths, with those paths. */
export function conflictsOf(p: Proposal, all: readonly Proposal[]): { id: string; paths: string[] }[] {
  const mine = new Set(p.facts.paths);
  return all
    .filter((o) => o.id !== p.id && o.status === 'pending' && o.repo === p.repo && o.branch === p.branch)
    .map((o) => ({ id: o.id, paths: o.facts.paths.filter((x) => mine.has(x)) }))
    .filter((c) => c.paths.length > 0);
}

/** Paths whose names hold invisible or reordering characters (shown with ⟨U+XXXX⟩ markers). */
export function hiddenCharacterPaths(p: Proposal): string[] {
  return p.facts.paths.filter(hasHidden);
}

/** Paths deleted by the change. */
export function deletedPaths(p: Proposal): readonly string[] {
  switch (p.change.kind) {
    case 'push_files':
    case 'pull_request':
      return p.change.deletes;
    case 'discard':
      return p.change.paths;
    case 'commit':
    case 'patch':
    case 'merge':
    case 'rebase':
    case 'reset':
    case 'branch':
    case 'push':
    case 'plan':
      return [];
    default:
      return assertNever(p.change);
  }
}

/** A flag for changes that move a branch to other history or throw work away (reset, rebase, discard). */
function rewritesHistory(p: Proposal): string | undefined {
  const steps = workspaceSteps(p.change);
  if (steps.some((s) => s.kind === 'reset' && s.mode === 'hard')) return 'hard reset';
  if (steps.some((s) => s.kind === 'reset' || s.kind === 'rebase')) return 'rewrites history';
  if (steps.some((s) => s.kind === 'discard')) return 'discards local changes';
  return undefined;
}

/** The flags of the list and of the proposal page. */
export function riskFlags(p: Proposal, all: readonly Proposal[]): RiskFlag[] {
  const flags: RiskFlag[] = [];
  if (p.facts.protected_paths.length > 0)
    flags.push({ label: `protected paths: ${p.facts.protected_paths.length}`, bad: true });
  if (hiddenCharacterPaths(p).length > 0) flags.push({ label: 'hidden characters in names', bad: true });
  // Overlaps matter only while a decision is open: a decided proposal overlaps nothing any more.
  const conflicts = p.status === 'pending' ? conflictsOf(p, all) : [];
  if (conflicts.length > 0) flags.push({ label: `overlaps ${conflicts.length} pending`, bad: false });
  const others = p.facts.other_agents ?? [];
  if (others.length > 0)
    flags.push({ label: `other agents here: ${others.map((o) => o.agent).join(', ')}`, bad: false });
  const deleted = deletedPaths(p).length;
  if (deleted > 0) flags.push({ label: `deletes ${deleted}`, bad: false });
  const rewrites = rewritesHistory(p);
  if (rewrites !== undefined) flags.push({ label: rewrites, bad: true });
  const allowlists = p.facts.branch_sources?.length ?? 0;
  if (allowlists > 0)
    flags.push({ label: `allowlists ${allowlists} branch${allowlists === 1 ? '' : 'es'}`, bad: true });
  const outside = p.facts.outside_window?.length ?? 0;
  if (outside > 0) flags.push({ label: `${outside} outside the agent's window`, bad: true });
  if (p.facts.paths.length > 20) flags.push({ label: `${p.facts.paths.length} files`, bad: false });
  return flags;
}

function assertNever(x: never): never {
  throw new Error(`unhandled proposal kind ${JSON.stringify(x)}`);
}
