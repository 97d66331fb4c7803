// Applies an approved proposal through the very line any call walks (decide → guard → upstream → filter), on the
// perimeter as it is now. What the person approved was computed against `base`; if the branch moved since in a way
// that touches the proposal's paths, the change is stale and fails instead of landing something nobody saw.
import {
  assertNever,
  bindAgent,
  proposalAgent,
  commitMessage,
  familyOf,
  workspaceSteps,
  type CommitChange,
  type Perimeter,
  type Proposal,
  type ProposalChange,
  type ServerPolicy,
} from '../core/index.js';
import type { Log } from '../registry/index.js';
import type { ApplyOutcome, ProposalDeps } from '../registry/proposals.js';
import { pushFiles } from '../registry/tools/push_files.js';
import type { UpstreamFor } from '../upstream/types.js';
import { invoke, spendBudget, type BudgetCounter, type InvokeDeps } from './invoke.js';
import { workspaceApplier, type WorkspaceApplierDeps } from './proposal-apply-ws.js';

/** The trailer that ties a commit to its proposal: how a restart tells whether an interrupted apply landed. */
export const PROPOSAL_TRAILER = 'Git-Blinder-Proposal';

export interface ApplierDeps {
  readonly upstreamFor: UpstreamFor;
  readonly log: Log;
  readonly policy?: ServerPolicy;
  /** Audit sink for the applied call itself (the write is a call like any other). */
  readonly record?: InvokeDeps['record'];
  /** Working-tree writers, for workspace proposals (absent: they fail, nothing is written). */
  readonly workspace?: Omit<WorkspaceApplierDeps, 'message' | 'budget'>;
  /**
   * The commit budget (`commits_per_hour`), shared with the calls: a proposal is charged here, when it is applied,
   * whatever its kind; absent = unlimited (tests of the raw lifecycle).
   */
  readonly budget?: BudgetCounter;
}

const failed = (reason: string): ApplyOutcome => ({ kind: 'failed', reason });

/** The commit message as applied: the agent's message and the proposal trailer. */
export function appliedMessage(message: string, id: string): string {
  return `${message.replace(/\s+$/, '')}\n\n${PROPOSAL_TRAILER}: ${id}\n`;
}

/** The paths a change touches (what the staleness check compares between base and head). */
function touched(c: ProposalChange): string[] {
  const f = familyOf(c);
  switch (f.family) {
    case 'push':
      return [...f.change.files.map((x) => x.path), ...f.change.deletes];
    case 'workspace':
      // Only a commit carries the trailer; the paths it names are where to look for it.
      return workspaceSteps(f.change).flatMap((s) => (s.kind === 'commit' ? s.paths : []));
    default:
      return assertNever(f, 'proposal family');
  }
}

/** The `apply` and `landed` halves of the proposal service's dependencies. */
export function proposalApplier(deps: ApplierDeps): Pick<ProposalDeps, 'apply' | 'landed'> {
  const workspace =
    deps.workspace === undefined
      ? undefined
      : workspaceApplier({
          upstreamFor: deps.upstreamFor,
          ...deps.workspace,
          message: appliedMessage,
          ...(deps.budget ? { budget: deps.budget } : {}),
        });
  return {
    async apply(
      p: Proposal,
      perimeter: Perimeter,
      beforeWrite: (restore?: string) => Promise<void>,
    ): Promise<ApplyOutcome> {
      const f = familyOf(p.change);
      switch (f.family) {
        case 'push':
          return applyPush(p, f.change, perimeter, beforeWrite);
        case 'workspace':
          return workspace === undefined
            ? failed('This process does not write working trees; nothing was written.')
            : workspace(p, perimeter, beforeWrite);
        default:
          return assertNever(f, 'proposal family');
      }
    },

    async landed(p: Proposal): Promise<string | undefined> {
      // A workspace proposal without a commit step leaves no trailer: an interrupted one is settled as failed, and
      // its restore point (listed by `git-blinder restore list`) is how the operator puts the tree back.
      if (familyOf(p.change).family !== 'push' && touched(p.change).length === 0) return undefined;
      const upstream = deps.upstreamFor(p.repo);
      if (upstream === undefined) throw new Error(`repository ${p.repo} not served`);
      const page = await upstream.listCommits(p.repo, writtenBranch(p), {
        paths: touched(p.change),
        skip: 0,
        limit: 50,
      });
      if (!page.ok) {
        if (page.error.code === 'not_found') return undefined;
        throw new Error(page.error.message);
      }
      const mark = `${PROPOSAL_TRAILER}: ${p.id}`;
      return page.value.commits.find((c) => c.message.split('\n').some((l) => l.trim() === mark))?.sha;
    },
  };

  /**
   * An approved push_files (on the bound branch) or local PR (its frozen net change, on its base), applied as a plain
   * push through every check a push gets, charged here.
   */
  async function applyPush(
    p: Proposal,
    change: CommitChange,
    perimeter: Perimeter,
    beforeWrite: (restore?: string) => Promise<void>,
  ): Promise<ApplyOutcome> {
    if (perimeter.repo !== p.repo)
      return failed(`Perimeter "${p.perimeter}" now points at another repository; nothing was written.`);
    const branch = writtenBranch(p);
    const bound = bindAgent(perimeter, branch, deps.policy);
    if (!bound.ok)
      return failed(`Branch "${branch}" is no longer in the allowlist of ${p.perimeter}; nothing was written.`);
    // This one call has its approval: it is applied as a plain push, through every check a push gets today.
    const binding = { ...bound.value, approval: { push_files: 'none' as const } };
    const upstream = deps.upstreamFor(p.repo);
    if (upstream === undefined)
      return failed(`Repository "${p.repo}" is not served by this process any more; nothing was written.`);
    const head = await upstream.branchHead(p.repo, branch);
    if (!head.ok) return failed(`Could not read ${branch} (${head.error.message}); nothing was written.`);
    if (head.value !== p.base) {
      const moved = await changedBetween(upstream, p.repo, p.base, head.value, touched(p.change));
      if (moved === undefined) {
        return failed(
          `stale: could not tell whether ${branch} changed the proposal's files since its base (the comparison failed or was cut short); nothing was written. Propose again on the current branch.`,
        );
      }
      if (moved.length > 0) {
        return failed(
          `stale: ${branch} moved since the proposal and changed ${moved.map((m) => `"${m}"`).join(', ')}; nothing was written. Propose again on the current branch.`,
        );
      }
    }
    // The commit is charged now, by the instance that writes it; the call below runs without a counter (no second charge).
    const spent = await spendBudget(deps.budget, binding, 'commits', proposalAgent(p.agent));
    if (spent !== undefined) return failed(`${spent.message} Nothing was written; propose again later.`);
    let restore: string | undefined;
    if (upstream.restorePoints) {
      const point = await upstream.restorePoints.create(p.repo, branch, p.id);
      if (!point.ok) return failed(`Could not take a restore point (${point.error.message}); nothing was written.`);
      restore = point.value.id;
    }
    await beforeWrite(restore);
    const args = toArgs(p, change);
    const out = await invoke(
      pushFiles,
      binding,
      args,
      { upstreamFor: deps.upstreamFor, log: deps.log, ...(deps.record ? { record: deps.record } : {}) },
      // The write is made for the agent that proposed it (its id, recorded from its key); the label says how.
      { agent: proposalAgent(p.agent), client: `approved ${p.id}` },
    );
    switch (out.kind) {
      case 'allow':
        return out.commit === undefined
          ? failed('The write answered without a commit.')
          : { kind: 'applied', commit: out.commit };
      case 'deny':
      case 'invisible':
      case 'missing':
      case 'error':
        return failed(out.message);
      case 'propose':
        throw new Error('an approved proposal was proposed again');
      default:
        return assertNever(out, 'call outcome');
    }
  }
}

/** The push_files arguments of a proposal, with the trailer in the message. */
function toArgs(p: Proposal, c: CommitChange): Record<string, unknown> {
  return {
    message: appliedMessage(commitMessage(c), p.id),
    files: c.files.map((f) => ({ ...f })),
    delete: [...c.deletes],
  };
}

/** The branch a proposal writes: a local PR's base, else the bound branch. */
function writtenBranch(p: Proposal): string {
  return p.change.kind === 'pull_request' ? p.change.into : p.branch;
}

/**
 * Paths among `paths` that a commit between `base` and `head` touched (a path, a directory above it, or one below it);
 * a branch that no longer contains `base` (rewritten) touches everything. Undefined when it cannot tell.
 */
async function changedBetween(
  upstream: NonNullable<ReturnType<UpstreamFor>>,
  repo: string,
  base: string,
  head: string,
  paths: readonly string[],
): Promise<string[] | undefined> {
  const cmp = await upstream.compare(repo, base, head);
  if (!cmp.ok) return undefined;
  // A capped listing (GitHub's 300 files) cannot say that a proposed path is untouched: cannot tell, so stale.
  if (!cmp.value.files_complete) return undefined;
  if (cmp.value.status !== 'ahead' && cmp.value.status !== 'identical') return [...paths];
  const changed = cmp.value.files.flatMap((f) =>
    f.previous_path === undefined ? [f.path] : [f.path, f.previous_path],
  );
  const hits = (p: string) => changed.some((c) => c === p || c.startsWith(`${p}/`) || p.startsWith(`${c}/`));
  return paths.filter(hits);
}
