// The proposal service: an agent's write held until a person says yes. It owns the lifecycle
// (pending → approved → applying → applied | failed; rejected, cancelled, expired) and nothing else: policy is re-run by
// the injected `apply` (the same decide → guard → upstream line as any call), storage is the ProposalStore port.
import {
  assertNever,
  changeIdentity,
  MAX_AGENT_LABEL,
  MAX_AGENT_REASON,
  MAX_IDEMPOTENCY_KEY,
  describeStep,
  familyOf,
  workspaceSteps,
  isTerminal,
  type Perimeter,
  type Proposal,
  type ProposalChange,
  type ProposalFacts,
  type ProposalStatus,
  type Result,
} from '../core/index.js';
import type { ProposalFilter, ProposalStore } from '../state/proposals.js';
import { newProposalId, proposalHash } from './proposal-ids.js';
import { proposalLifecycle } from './proposal-lifecycle.js';

export type { ProposalFilter } from '../state/proposals.js';

/** Default time a pending proposal waits for a decision. */
export const DEFAULT_PROPOSAL_TTL_MS = 24 * 60 * 60 * 1000;

/** Pending proposals one perimeter may have at once: an agent cannot bury the approvers (or the store). */
export const MAX_PENDING_PER_PERIMETER = 100;

/** Why a proposal operation was refused; the HTTP layer maps each to one status code. */
export type ProposalError = 'not_found' | 'conflict' | 'invalid';

/** What an agent call asks to hold for approval (the call already passed the policy). */
export interface NewProposal {
  readonly perimeter: string;
  readonly repo: string;
  readonly branch: string;
  /** The branch head the proposal is made against. */
  readonly base: string;
  readonly agent: string;
  readonly change: ProposalChange;
  readonly facts: ProposalFacts;
  readonly agentReason?: string;
  readonly idempotencyKey?: string;
}

/** How an approved change ended when it was run: its commit, or why it was not applied (and a restore point taken). */
export type ApplyOutcome =
  | { readonly kind: 'applied'; readonly commit: string; readonly restore?: string; readonly headUnchanged?: true }
  | { readonly kind: 'failed'; readonly reason: string; readonly restore?: string };

/** A proposal's transition as the audit ledger records it. */
export interface ProposalEvent {
  readonly proposal: Proposal;
  /** The transition: `proposed`, or the status it moved to. */
  readonly event: 'proposed' | Exclude<ProposalStatus, 'pending'>;
  /** Who caused it: an operator label, `agent`, or `server`. */
  readonly by: string;
}

/** What the service needs; everything is passed in. */
export interface ProposalDeps {
  readonly store: ProposalStore;
  /** The perimeter as it is now (approval re-checks against this, never against a copy taken at proposal time). */
  readonly perimeter: (id: string) => Perimeter | undefined;
  /**
   * Runs an approved change: re-runs the policy on the perimeter as it is now, checks the base has not moved in a way
   * that changes the change, takes a restore point where the upstream has them, and calls `beforeWrite` (with the
   * restore point's name) right before the write: the proposal is stored as `applying` before anything can land. Never
   * throws for a refusal: that is `failed` with a reason a person can act on.
   */
  readonly apply: (
    p: Proposal,
    perimeter: Perimeter,
    beforeWrite: (restore?: string) => Promise<void>,
  ) => Promise<ApplyOutcome>;
  /** Looks at the branch for the commit of an interrupted apply: its sha if it landed, else undefined. */
  readonly landed: (p: Proposal) => Promise<string | undefined>;
  /** Called once per transition, after it is stored; must not throw. */
  readonly audit: (e: ProposalEvent) => void;
  readonly now?: () => number;
  readonly ttlMs?: number;
  readonly newId?: () => string;
}

/** The operator's and the agent's view of proposals. Agent reads go through `getFor`/`cancel`, scoped by perimeter. */
export interface ProposalService {
  /** Holds a change for approval (or returns the one its idempotency key already names). */
  create(req: NewProposal): Promise<Result<Proposal, ProposalError>>;
  /** Newest first; expired proposals are marked before they are listed. */
  list(filter?: ProposalFilter): Promise<readonly Proposal[]>;
  /** Operator read of any proposal. */
  get(id: string): Promise<Proposal | undefined>;
  /** Agent read: a proposal of another perimeter is `undefined`, exactly like an unknown id. */
  getFor(perimeter: string, id: string): Promise<Proposal | undefined>;
  /**
   * Approves and applies. `hash`, when given, must be the hash the approver saw: approving a different change is
   * impossible. Answers the proposal as it ended (`applied` or `failed` with the reason).
   */
  approve(id: string, by: string, hash?: string): Promise<Result<Proposal, ProposalError>>;
  reject(id: string, by: string, reason: string): Promise<Result<Proposal, ProposalError>>;
  /** The agent's cancel of its own pending proposal; another perimeter's reads as not found. */
  cancel(perimeter: string, id: string): Promise<Result<Proposal, ProposalError>>;
  /** Marks every pending proposal past its TTL as expired; answers how many. */
  expire(): Promise<number>;
  /** At start: `approved` never ran → failed; `applying` → applied if its commit landed, else failed "interrupted". */
  reconcile(): Promise<number>;
}

/** One line about a change, from what the agent asked (never from upstream state). */
export function summarize(change: ProposalChange, branch: string): string {
  const f = familyOf(change);
  switch (f.family) {
    case 'push': {
      const c = f.change;
      const names = [...c.files.map((x) => x.path), ...c.deletes];
      const shown = names.slice(0, 5).join(', ') + (names.length > 5 ? `, … (${names.length - 5} more)` : '');
      const what =
        c.kind === 'push_files' ? `push_files on ${branch}` : `pull request #${c.number}: ${branch} into ${c.into}`;
      return `${what}: ${c.files.length} written, ${c.deletes.length} deleted (${shown})`;
    }
    case 'workspace': {
      const steps = workspaceSteps(f.change).map(describeStep);
      if (f.change.kind !== 'plan') return `${f.change.kind} on ${branch}: ${steps[0] ?? ''}`;
      return `plan on ${branch}: ${steps.length} step${steps.length === 1 ? '' : 's'} (${steps.slice(0, 3).join('; ')}${steps.length > 3 ? '; …' : ''})`;
    }
    default:
      return assertNever(f, 'proposal family');
  }
}

/** The proposal service over a store. */
export function proposalService(deps: ProposalDeps): ProposalService {
  const now = deps.now ?? Date.now;
  const ttl = deps.ttlMs ?? DEFAULT_PROPOSAL_TTL_MS;
  const newId = deps.newId ?? newProposalId;
  const life = proposalLifecycle(deps, now);

  return {
    async create(req) {
      const unfit = agentFieldRefusal(req);
      if (unfit !== undefined) return { ok: false, code: 'invalid', message: unfit };
      if (req.idempotencyKey !== undefined) {
        const prior = await deps.store.findByKey(req.perimeter, req.change.kind, req.idempotencyKey);
        if (prior !== undefined) return sameChange(prior, req);
      }
      await life.expireDue();
      const waiting = await deps.store.list({ perimeter: req.perimeter, status: 'pending' });
      if (waiting.length >= MAX_PENDING_PER_PERIMETER) {
        return {
          ok: false,
          code: 'conflict',
          message: `${MAX_PENDING_PER_PERIMETER} proposals of this perimeter are already waiting for approval; wait for decisions or cancel some (proposal_cancel).`,
        };
      }
      // Stamped on the store's clock: `expires_at` is compared with it by every instance (issue 21 §3).
      const t = await life.storeNow();
      const at = new Date(t).toISOString();
      const draft: Proposal = {
        id: newId(),
        perimeter: req.perimeter,
        repo: req.repo,
        branch: req.branch,
        base: req.base,
        agent: req.agent.slice(0, MAX_AGENT_LABEL),
        ...(req.agentReason === undefined ? {} : { agent_reason: req.agentReason }),
        ...(req.idempotencyKey === undefined ? {} : { idempotency_key: req.idempotencyKey }),
        hash: proposalHash(req),
        summary: summarize(req.change, req.branch),
        facts: req.facts,
        change: req.change,
        created_at: at,
        updated_at: at,
        expires_at: new Date(t + ttl).toISOString(),
        status: 'pending',
      };
      const stored = await deps.store.insert(draft);
      switch (stored.kind) {
        case 'existing':
          return sameChange(stored.proposal, req);
        case 'refused':
          return { ok: false, code: 'conflict', message: stored.message };
        case 'created':
          life.emit(stored.proposal, 'proposed', 'agent');
          return { ok: true, value: stored.proposal };
        default:
          return assertNever(stored, 'insert outcome');
      }
    },

    async list(filter) {
      await life.expireDue();
      return deps.store.list(filter);
    },

    async get(id) {
      await life.expireDue();
      return deps.store.get(id);
    },

    async getFor(perimeter, id) {
      await life.expireDue();
      const p = await deps.store.get(id);
      return p !== undefined && p.perimeter === perimeter ? p : undefined;
    },

    approve: (id, by, hash) => life.approve(id, by, hash),
    reject: (id, by, reason) => life.reject(id, by, reason),
    cancel: (perimeter, id) => life.cancel(perimeter, id),
    expire: () => life.expireDue(),
    reconcile: () => life.reconcile(),
  };
}

/**
 * The caps on what an agent sends that a record stores (the record's schema holds the same ones): whatever tool made
 * the request, a field over its cap is refused here, in words, before the store would reject the record.
 */
function agentFieldRefusal(req: NewProposal): string | undefined {
  if (req.agentReason !== undefined && req.agentReason.length > MAX_AGENT_REASON)
    return `The reason is too long (at most ${MAX_AGENT_REASON} characters). Nothing was proposed.`;
  if (
    req.idempotencyKey !== undefined &&
    (req.idempotencyKey.length === 0 || req.idempotencyKey.length > MAX_IDEMPOTENCY_KEY)
  ) {
    return `An idempotency key has 1 to ${MAX_IDEMPOTENCY_KEY} characters. Nothing was proposed.`;
  }
  return undefined;
}

/** What the agent's tools may do with proposals: read and cancel their own perimeter's, nothing else. */
export type AgentProposals = Pick<ProposalService, 'getFor' | 'cancel' | 'create' | 'list'>;

/** An idempotent retry: the stored proposal when it is the same change, else a refusal (a key names one change). */
function sameChange(prior: Proposal, req: NewProposal): Result<Proposal, ProposalError> {
  if (changeIdentity(prior) === changeIdentity(req)) return { ok: true, value: prior };
  return {
    ok: false,
    code: 'conflict',
    message: 'This idempotency key was already used for a different change; use a new key.',
  };
}

export { isTerminal, newProposalId, proposalHash };
