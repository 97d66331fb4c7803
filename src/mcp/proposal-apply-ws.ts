// Applies an approved workspace proposal on the working tree where its branch is checked out. Every step is judged
// again on the perimeter as it is now (paths from a fresh preview, revisions against the allowlist); the first step
// must still have the fingerprint the person approved, or the proposal is stale and nothing runs. A plan stops at the
// first step that is refused or declined; steps before it stay applied, each behind its own restore point.
import {
  agentAuthor,
  assertNever,
  bindAgent,
  isAgentName,
  proposalAgent,
  withAgentTrailer,
  compressedRefusal,
  describeStep,
  patchPaths,
  scanBytesForSecrets,
  secretsRefusal,
  stepRefRefusal,
  stepRevisions,
  workspacePathRefusal,
  workspaceSteps,
  type AgentBinding,
  type Perimeter,
  type Proposal,
  type ServerPolicy,
  type WorkspaceStep,
} from '../core/index.js';
import { spendBudget, type BudgetCounter } from './invoke.js';
import type { ApplyOutcome } from '../registry/proposals.js';
import { LEGACY_WORKSPACE_AUTHOR, writeOpOf } from '../registry/workspace-ops.js';
import { SCAN_MAX_BYTES } from '../registry/workspace-propose.js';
import { judgeRevisions, revisionNotFound } from '../registry/workspace-revisions.js';
import type { UpstreamFor } from '../upstream/types.js';
import type { WorkTreeWriter, WorkTreeWriters } from '../workspace/writes.js';

export interface WorkspaceApplierDeps {
  readonly writers: WorkTreeWriters;
  readonly policy?: ServerPolicy;
  /** Adds a branch to a perimeter's allowlist (an approved propose_branch); absent, a created branch stays unlisted. */
  readonly allowBranch?: (perimeter: string, branch: string) => Promise<void>;
  /** Commit messages as applied (the proposal trailer that lets a restart find an interrupted commit). */
  readonly message: (message: string, id: string) => string;
  /** Reads the history a named revision must be reachable in (absent: a step naming a commit id fails closed). */
  readonly upstreamFor?: UpstreamFor;
  /** The commit budget, charged once per step that records a commit, right before it runs; absent = unlimited. */
  readonly budget?: BudgetCounter;
}

/** Steps that record commits on the branch (and so spend `commits_per_hour`); the others change the tree or refs only. */
function commits(step: WorkspaceStep): boolean {
  switch (step.kind) {
    case 'commit':
    case 'merge':
    case 'rebase':
      return true;
    case 'patch':
    case 'discard':
    case 'reset':
    case 'branch':
    case 'push':
      return false;
    default:
      return assertNever(step, 'workspace step');
  }
}

/**
 * The credential scan of a commit step at approval, over every path (those the agent could not read were left to
 * this moment). The reason names a finding only on a path the agent may read: it reaches the agent as the failure.
 */
async function scanAtApproval(
  w: WorkTreeWriter,
  paths: readonly string[],
  b: AgentBinding,
): Promise<string | undefined> {
  if (b.allowSecrets) return undefined;
  const stored = await w.stored(paths, SCAN_MAX_BYTES);
  if (!stored.ok) return `could not read the files to scan (${stored.error.message})`;
  const files = stored.value.flatMap((c) =>
    c.kind === 'file'
      ? [{ path: c.path, bytes: c.bytes }]
      : c.kind === 'symlink'
        ? [{ path: c.path, bytes: c.target }]
        : [],
  );
  const readable = files.filter((f) => b.scope.canRead(f.path));
  const unreadable = files.filter((f) => !b.scope.canRead(f.path));
  const hidden = scanBytesForSecrets(unreadable, { allowCompressed: b.allowBinary });
  if (hidden.findings.length > 0 || hidden.compressed.length > 0) {
    return "a file outside the agent's window looks like it holds a credential or compressed content";
  }
  const seen = scanBytesForSecrets(readable, { allowCompressed: b.allowBinary });
  if (seen.compressed.length > 0) return compressedRefusal(seen.compressed);
  return seen.findings.length > 0 ? secretsRefusal(seen.findings) : undefined;
}

const failed = (reason: string, restore?: string): ApplyOutcome => ({
  kind: 'failed',
  reason,
  ...(restore === undefined ? {} : { restore }),
});

/** The `apply` of workspace proposals. */
export function workspaceApplier(deps: WorkspaceApplierDeps) {
  return async (
    p: Proposal,
    perimeter: Perimeter,
    beforeWrite: (restore?: string) => Promise<void>,
  ): Promise<ApplyOutcome> => {
    if (p.change.kind === 'push_files' || p.change.kind === 'pull_request')
      throw new Error(`${p.change.kind} is not a workspace proposal`);
    if (perimeter.repo !== p.repo)
      return failed(`Perimeter "${p.perimeter}" now points at another repository; nothing was written.`);
    const bound = bindAgent(perimeter, p.branch, deps.policy);
    if (!bound.ok)
      return failed(`Branch "${p.branch}" is no longer in the allowlist of ${p.perimeter}; nothing was written.`);
    const opened = await deps.writers.open(p.repo, p.branch);
    if (!opened.ok)
      return failed(`Could not open the working tree of ${p.branch} (${opened.error.message}); nothing was written.`);
    const writer = opened.value;
    if (writer === undefined)
      return failed(`Branch "${p.branch}" is no longer checked out in a working tree; nothing was written.`);
    const steps = workspaceSteps(p.change);
    const allowlist = [...perimeter.branches];
    // Commits are made for the agent that proposed: its author form and its Agent-Id trailer.
    const agent = proposalAgent(p.agent);
    let started = false;
    let first: string | undefined;
    let head = p.base;
    let startHead: string | undefined;
    for (const [i, step] of steps.entries()) {
      const at = steps.length > 1 ? `step ${i + 1} (${describeStep(step)}): ` : '';
      const done = i === 0 ? 'nothing was written' : `the ${i} step${i === 1 ? '' : 's'} before it stay applied`;
      const tool = `propose_${step.kind}`;
      const refRefusal = stepRefRefusal(tool, step, allowlist);
      if (refRefusal !== undefined)
        return failed(`${at}${refRefusal.replace('Nothing was proposed', 'Not applied')}; ${done}.`, first);
      // The read rule again, on the perimeter as it is now (an allowlist may have shrunk since the proposal).
      if (stepRevisions(step).length > 0) {
        const upstream = deps.upstreamFor?.(p.repo);
        if (upstream === undefined)
          return failed(`${at}this process cannot check the revision it names; ${done}.`, first);
        const revs = await judgeRevisions(
          {
            upstream,
            repo: p.repo,
            scope: bound.value.scope,
            branches: [p.branch, ...allowlist.filter((x) => x !== p.branch)],
          },
          step,
        );
        if (!revs.ok) return failed(`${at}could not check the revision (${revs.error.message}); ${done}.`, first);
        if ('unreadable' in revs.value)
          return failed(
            `${at}${revisionNotFound(tool, revs.value.unreadable).replace('Nothing was proposed', 'Not applied')} (${done}).`,
            first,
          );
      }
      // What runs carries the proposal trailer; what was proposed (and fingerprinted) did not. Preview the one that
      // runs first, then check the proposed one still has the approved fingerprint: a change between the two shows in
      // the second, a change after the first makes the apply decline as stale.
      const op = writeOpOf(
        step,
        p.id,
        (m, id) => withAgentTrailer(deps.message(m, id), agent),
        agentAuthor(agent, p.perimeter),
      );
      const preview = await writer.preview(op);
      if (!preview.ok) return failed(`${at}could not preview (${preview.error.message}); ${done}.`, first);
      startHead ??= preview.value.base;
      const named = step.kind === 'patch' ? patchPaths(step.patch) : undefined;
      if (named !== undefined && !named.ok) return failed(`${at}${named.message}; ${done}.`, first);
      const paths = [...new Set([...preview.value.paths, ...(named?.ok ? named.value.paths : [])])];
      const refusal = workspacePathRefusal(tool, paths, bound.value);
      if (refusal !== undefined)
        return failed(`${at}${refusal.replace('Nothing was proposed', 'Not applied')} (${done}).`, first);
      if (step.kind === 'commit') {
        const secret = await scanAtApproval(writer, step.paths, bound.value);
        if (secret !== undefined) return failed(`${at}${tool} refused: ${secret}; not applied (${done}).`, first);
      }
      if (i === 0) {
        const asProposed = isAgentName(p.agent) ? agentAuthor(agent, p.perimeter) : LEGACY_WORKSPACE_AUTHOR;
        const proposed = await writer.preview(writeOpOf(step, p.id, (m) => m, asProposed));
        if (!proposed.ok || proposed.value.fingerprint !== p.change.fingerprint) {
          return failed(
            `stale: the working tree of ${p.branch} changed since the proposal was made (what the approver saw is no longer what would run); nothing was written. Propose again.`,
          );
        }
      }
      const maxFiles = bound.value.limits.files_per_commit;
      if (step.kind === 'commit' && maxFiles !== undefined && step.paths.length > maxFiles) {
        return failed(
          `${at}${tool} refused: this perimeter allows at most ${maxFiles} files per commit (this one has ${step.paths.length}); not applied (${done}).`,
          first,
        );
      }
      if (commits(step)) {
        const spent = await spendBudget(deps.budget, bound.value, 'commits', agent);
        if (spent !== undefined) return failed(`${at}${spent.message} Not applied (${done}).`, first);
      }
      if (!started) {
        await beforeWrite();
        started = true;
      }
      const out = await writer.apply(op, preview.value.fingerprint);
      if (!out.ok) return failed(`${at}failed (${out.error.message}); ${done}.`, first);
      if (out.value.kind === 'declined') {
        const reason =
          out.value.reason === 'stale'
            ? 'stale: the working tree changed since the preview'
            : `${out.value.reason}: ${out.value.message}`;
        return failed(`${at}declined (${reason}); ${done}.`, first);
      }
      first ??= out.value.restorePoint ?? undefined;
      head = out.value.head;
      if (step.kind === 'branch') {
        allowlist.push(step.name);
        await deps.allowBranch?.(perimeter.id, step.name);
      }
    }
    // A change that left the head where it was is reported as such, never as a commit id that is the old head.
    return {
      kind: 'applied',
      commit: head,
      ...(first === undefined ? {} : { restore: first }),
      ...(head === startHead ? { headUnchanged: true as const } : {}),
    };
  };
}
