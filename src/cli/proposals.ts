// Composes the proposal service for `serve`: the file store in the state dir, the applier over the upstreams, and
// the audit ledger. Reconciles what a previous process left half-done before anything is served.
import type { ServerPolicy } from '../core/index.js';
import { proposalApplier } from '../mcp/proposal-apply.js';
import type { CallRecord } from '../mcp/index.js';
import type { Log } from '../registry/index.js';
import { proposalService, type ProposalEvent, type ProposalService } from '../registry/proposals.js';
import type { PerimeterStore } from '../registry/store.js';
import { allowBranchIn } from '../registry/allow-branch.js';
import { openFileProposalStore } from '../state/file/proposals.js';
import type { UpstreamFor } from '../upstream/types.js';
import type { WorkTreeWriters } from '../workspace/writes.js';
import { CliError } from './client.js';

export interface ProposalSetup {
  readonly stateDir: string;
  readonly perimeters: PerimeterStore;
  readonly upstreamFor: UpstreamFor;
  readonly log: Log;
  readonly policy: ServerPolicy;
  readonly ttlSeconds?: number | undefined;
  /** Late-bound: the ledger opens after the bind. */
  readonly record: (r: CallRecord) => void;
  readonly audit: (e: ProposalEvent) => void;
  /** Working-tree writers for workspace proposals (absent: they fail on approval, nothing is written). */
  readonly writers?: WorkTreeWriters;
}

/** Opens the proposal store and builds the service (a corrupt store stops the start: decisions are never dropped). */
export async function openProposals(o: ProposalSetup): Promise<ProposalService> {
  const opened = await openFileProposalStore(o.stateDir);
  if (!opened.ok) throw new CliError(opened.message);
  const applier = proposalApplier({
    upstreamFor: o.upstreamFor,
    log: o.log,
    policy: o.policy,
    record: o.record,
    ...(o.writers === undefined ? {} : { workspace: { writers: o.writers, policy: o.policy, allowBranch: allowBranchIn(o.perimeters) } }),
  });
  return proposalService({
    store: opened.value,
    perimeter: (id) => o.perimeters.get(id),
    ...applier,
    audit: o.audit,
    ...(o.ttlSeconds === undefined ? {} : { ttlMs: o.ttlSeconds * 1000 }),
  });
}
