// The proposal store port (types only). The file adapter (state/file/proposals.ts) is the default; a shared store
// (PostgreSQL) implements the same interface. Every method is async so either can stand behind it. Both hold the
// bounds of `core/proposal-bounds.ts` per perimeter, and one perimeter's write never costs more for another's history.
import type { Proposal, ProposalKind, ProposalStatus, Result } from '../core/index.js';

/** Which proposals a list returns; absent fields do not filter. */
export interface ProposalFilter {
  readonly perimeter?: string;
  readonly status?: ProposalStatus;
  /** Only proposals on this repository and/or branch (presence asks for the pending ones of one branch). */
  readonly repo?: string;
  readonly branch?: string;
}

/** What `insert` did. */
export type InsertOutcome =
  | { readonly kind: 'created'; readonly proposal: Proposal }
  | { readonly kind: 'existing'; readonly proposal: Proposal }
  | { readonly kind: 'refused'; readonly message: string };

/** Why a store change was refused. */
export type ProposalStoreError = 'not_found' | 'conflict';

/**
 * Durable proposals. Every write resolves only once the change is stored durably: the agent is acknowledged, and an
 * operator's decision takes effect, after that and never before.
 */
export interface ProposalStore {
  /** Newest first. */
  list(filter?: ProposalFilter): Promise<readonly Proposal[]>;
  get(id: string): Promise<Proposal | undefined>;
  /**
   * Stores a new proposal, unless one with the same perimeter, kind and idempotency key exists: then that one is
   * answered `existing` and nothing is written (the caller decides whether the two are the same change). Holds the
   * store's bounds for the proposal's perimeter (`admitProposal`, core): finished records past their keep time, then
   * the oldest finished ones, are deleted to make room; when the open ones leave none, `refused` and nothing changes.
   */
  insert(p: Proposal): Promise<InsertOutcome>;
  /**
   * The one atomic transition: when the stored proposal's status is one of `from`, replaces it with `next(current)`
   * and stores it; otherwise `conflict` (someone else moved it first) and nothing is written.
   */
  transition(
    id: string,
    from: readonly ProposalStatus[],
    next: (current: Proposal) => Proposal,
  ): Promise<Result<Proposal, ProposalStoreError>>;
  /**
   * The `approved` and `applying` proposals whose applier is gone, oldest first: only those may be settled by someone
   * else (issue 21 §2). A store one process uses answers all of them (its applier was a previous process); a shared
   * store answers those whose instance has been out of the live set for longer than the silence bound.
   */
  orphans(): Promise<readonly Proposal[]>;
  /** The proposal holding this idempotency key for this perimeter and kind, if any. */
  findByKey(perimeter: string, kind: ProposalKind, key: string): Promise<Proposal | undefined>;
  /**
   * The store's clock (epoch milliseconds), for a store shared by instances whose clocks may differ: a proposal's
   * times and its expiry are read on it, so one instance running ahead cannot expire everyone's proposals. Absent
   * for a single-process store: the service's own clock is the only one.
   */
  readonly now?: () => Promise<number>;
}
