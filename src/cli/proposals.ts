// Composes the proposal service for `compose`: the state's proposal store (file or PostgreSQL), the applier over the upstreams, and
// the audit ledger. Reconciles what a previous process left half-done before anything is served.
import type { ServerPolicy } from '../core/index.js';
import { proposalApplier } from '../mcp/proposal-apply.js';
import type { CallRecord } from '../mcp/index.js';
import type { BudgetCounter } from '../mcp/invoke.js';
import type { Log } from '../registry/index.js';
import { proposalService, type ProposalEvent, type ProposalService } from '../registry/proposals.js';
import type { ProposalStore } from '../state/proposals.js';
import type { PerimeterStore } from '../state/types.js';
import type { UpstreamFor } from '../upstream/types.js';
import type { WorkTreeWriters } from '../workspace/writes.js';
import { allowBranchIn } from '../registry/allow-branch.js';

export interface ProposalSetup {
  readonly store: ProposalStore;
  readonly perimeters: PerimeterStore;
  readonly upstreamFor: UpstreamFor;
  readonly log: Log;
  readonly policy: ServerPolicy;
  /** How long a proposal waits for a decision (default: the service's). */
  readonly ttlMs?: number | undefined;
  /** The service's clock (tests move it). */
  readonly now?: (() => number) | undefined;
  /** Late-bound: the ledger opens after the bind. */
  readonly record: (r: CallRecord) => void;
  readonly audit: (e: ProposalEvent) => void;
  /** Working-tree writers for workspace proposals (absent: they fail on approval, nothing is written). */
  readonly writers?: WorkTreeWriters;
  /** The store's shared counters: an approved proposal spends `commits_per_hour` when this instance applies it. */
  readonly budget?: BudgetCounter;
}

/** Builds the service over the opened store (a corrupt store already stopped the start: decisions are never dropped). */
export async function openProposals(o: ProposalSetup): Promise<ProposalService> {
  const applier = proposalApplier({
    upstreamFor: o.upstreamFor,
    log: o.log,
    policy: o.policy,
    record: o.record,
    ...(o.budget === undefined ? {} : { budget: o.budget }),
    ...(o.writers === undefined
      ? {}
      : { workspace: { writers: o.writers, policy: o.policy, allowBranch: allowBranchIn(o.perimeters) } }),
  });
  return proposalService({
    store: o.store,
    perimeter: (id) => o.perimeters.get(id),
    ...applier,
    audit: o.audit,
    ...(o.ttlMs === undefined ? {} : { ttlMs: o.ttlMs }),
    ...(o.now === undefined ? {} : { now: o.now }),
  });
}
