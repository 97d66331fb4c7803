// The transitions of a proposal, each one stored (atomically, by status) before anything acts on it, and each one an
// audit event. Split from proposals.ts so the service file stays the readable interface.
import { assertNever, type Proposal, type ProposalStatus, type Result } from '../core/index.js';
import type { ProposalDeps, ProposalError, ProposalEvent } from './proposals.js';
import { proposalHash } from './proposal-ids.js';

type Transition = ProposalEvent['event'];

const fail = (code: ProposalError, message: string) => ({ ok: false as const, code, message });

/** The message for a proposal that is not (or no longer) pending. */
function notPending(p: Proposal): string {
  switch (p.status) {
    case 'pending':
      return `Proposal ${p.id} is pending.`;
    case 'approved':
    case 'applying':
      return `Proposal ${p.id} is already approved and being applied.`;
    case 'applied':
      return `Proposal ${p.id} was already applied (commit ${p.commit}).`;
    case 'failed':
      return `Proposal ${p.id} already failed: ${p.reason}`;
    case 'rejected':
      return `Proposal ${p.id} was rejected.`;
    case 'cancelled':
      return `Proposal ${p.id} was cancelled.`;
    case 'expired':
      return `Proposal ${p.id} expired before anyone approved it.`;
    default:
      return assertNever(p, 'proposal');
  }
}

/** The lifecycle operations over the service's dependencies. */
export function proposalLifecycle(deps: ProposalDeps, now: () => number) {
  const iso = () => new Date(now()).toISOString();
  /** The time expiry is judged on: the shared store's clock when it has one, else this process's. */
  const storeNow = async (): Promise<number> => (deps.store.now === undefined ? now() : await deps.store.now());
  const emit = (proposal: Proposal, event: Transition, by: string): void => {
    try {
      deps.audit({ proposal, event, by });
    } catch {
      // The audit sink reports its own failures; a transition that is stored stays stored.
    }
  };
  /** Moves a proposal from one of `from`, storing first, then auditing. */
  const move = async (
    id: string,
    from: readonly ProposalStatus[],
    next: (p: Proposal) => Proposal,
    by: string,
  ): Promise<Result<Proposal, ProposalError>> => {
    const r = await deps.store.transition(id, from, next);
    if (!r.ok) {
      if (r.code === 'not_found') return fail('not_found', `No proposal "${id}".`);
      const current = await deps.store.get(id);
      return fail('conflict', current === undefined ? `No proposal "${id}".` : notPending(current));
    }
    emit(r.value, r.value.status === 'pending' ? 'proposed' : (r.value.status as Transition), by);
    return { ok: true, value: r.value };
  };
  const decided = (by: string) => ({ decided_by: by, decided_at: iso(), updated_at: iso() });
  const failWith =
    (reason: string, by: string) =>
    (p: Proposal): Proposal => ({
      ...common(p),
      ...decided(by),
      ...('restore' in p && p.restore !== undefined ? { restore: p.restore } : {}),
      status: 'failed',
      reason,
    });
  const overdue = (p: Proposal, at: number) => p.status === 'pending' && Date.parse(p.expires_at) <= at;

  const expireDue = async (): Promise<number> => {
    let n = 0;
    const at = await storeNow();
    const stamp = new Date(at).toISOString();
    for (const p of await deps.store.list({ status: 'pending' })) {
      if (!overdue(p, at)) continue;
      const r = await move(
        p.id,
        ['pending'],
        (q) => ({ ...common(q), decided_by: 'server', decided_at: stamp, updated_at: stamp, status: 'expired' }),
        'server',
      );
      if (r.ok) n += 1;
    }
    return n;
  };

  return {
    emit,
    expireDue,
    storeNow,

    async approve(id: string, by: string, hash?: string): Promise<Result<Proposal, ProposalError>> {
      const p = await deps.store.get(id);
      if (p === undefined) return fail('not_found', `No proposal "${id}".`);
      if (overdue(p, await storeNow())) {
        await expireDue();
        return fail('conflict', notPending({ ...common(p), ...decided('server'), status: 'expired' }));
      }
      if (p.status !== 'pending') return fail('conflict', notPending(p));
      // The stored record must still be the change that was hashed (a state file edited by hand is not approvable),
      // and the approver must have seen this very change.
      if (proposalHash(p) !== p.hash)
        return fail('invalid', `Proposal ${id} does not match its own hash; it cannot be approved.`);
      if (hash !== undefined && hash !== p.hash)
        return fail('invalid', `Proposal ${id} is not the change you reviewed (hash mismatch); reload it.`);
      const approved = await move(id, ['pending'], (q) => ({ ...common(q), ...decided(by), status: 'approved' }), by);
      if (!approved.ok) return approved;
      const perimeter = deps.perimeter(p.perimeter);
      if (perimeter === undefined)
        return move(id, ['approved'], failWith(`Perimeter "${p.perimeter}" no longer exists.`, 'server'), 'server');
      let applying: Proposal | undefined;
      const beforeWrite = async (ref?: string): Promise<void> => {
        const r = await move(
          id,
          ['approved'],
          (q) => ({ ...common(q), ...decided(by), ...(ref === undefined ? {} : { restore: ref }), status: 'applying' }),
          by,
        );
        if (!r.ok) throw new Error(`proposal ${id} left approved while applying: ${r.message}`);
        applying = r.value;
      };
      let out;
      try {
        out = await deps.apply(approved.value, perimeter, beforeWrite);
      } catch (err) {
        // Once applying, the write may have landed before the failure: the branch says which, as after a crash.
        const sha = applying === undefined ? undefined : await deps.landed(approved.value).catch(() => undefined);
        out =
          sha !== undefined
            ? { kind: 'applied' as const, commit: sha }
            : {
                kind: 'failed' as const,
                reason: `The write failed unexpectedly (${err instanceof Error ? err.message : String(err)}).`,
              };
      }
      const from: ProposalStatus[] = applying === undefined ? ['approved'] : ['applying'];
      switch (out.kind) {
        case 'applied':
          return move(
            id,
            from,
            (q) => ({
              ...common(q),
              ...decided(by),
              ...restoreOf(q),
              ...restoreField(out),
              status: 'applied',
              commit: out.commit,
              ...(out.headUnchanged ? { head_unchanged: true as const } : {}),
            }),
            by,
          );
        case 'failed':
          return move(id, from, (q) => ({ ...failWith(out.reason, by)(q), ...restoreField(out) }), by);
        default:
          return assertNever(out, 'apply outcome');
      }
    },

    async reject(id: string, by: string, reason: string): Promise<Result<Proposal, ProposalError>> {
      if (reason.trim() === '') return fail('invalid', 'A rejection needs a reason.');
      await expireDue();
      return move(id, ['pending'], (q) => ({ ...common(q), ...decided(by), status: 'rejected', reason }), by);
    },

    async cancel(perimeter: string, id: string): Promise<Result<Proposal, ProposalError>> {
      await expireDue();
      const p = await deps.store.get(id);
      // Another perimeter's proposal is answered exactly like an id that was never issued.
      if (p === undefined || p.perimeter !== perimeter) return fail('not_found', `No proposal "${id}".`);
      return move(id, ['pending'], (q) => ({ ...common(q), ...decided('agent'), status: 'cancelled' }), 'agent');
    },

    async reconcile(): Promise<number> {
      let n = 0;
      // Only what the store says nobody alive is applying (issue 21 §2): another instance's apply in progress is its own.
      const left = await deps.store.orphans();
      for (const p of left.filter((q) => q.status === 'approved')) {
        const r = await move(
          p.id,
          ['approved'],
          failWith('The server stopped before the write started; nothing was written. Propose again.', 'server'),
          'server',
        );
        if (r.ok) n += 1;
      }
      for (const p of left.filter((q) => q.status === 'applying')) {
        // Never re-run: look at the branch. The write either landed (its commit carries the proposal id) or it did not.
        let sha: string | undefined;
        try {
          sha = await deps.landed(p);
        } catch {
          continue; // upstream unreachable: leave it applying, the next start looks again
        }
        const r =
          sha === undefined
            ? await move(
                p.id,
                ['applying'],
                failWith('interrupted: the server stopped while applying and the commit did not land.', 'server'),
                'server',
              )
            : await move(
                p.id,
                ['applying'],
                (q) => ({ ...common(q), ...decided('server'), ...restoreOf(q), status: 'applied', commit: sha }),
                'server',
              );
        if (r.ok) n += 1;
      }
      return n;
    },
  };
}

/** The fields every state shares, without the state-specific ones (so a transition never drags stale fields along). */
function common(p: Proposal) {
  return {
    id: p.id,
    perimeter: p.perimeter,
    repo: p.repo,
    branch: p.branch,
    base: p.base,
    agent: p.agent,
    ...(p.agent_reason === undefined ? {} : { agent_reason: p.agent_reason }),
    ...(p.idempotency_key === undefined ? {} : { idempotency_key: p.idempotency_key }),
    hash: p.hash,
    summary: p.summary,
    facts: p.facts,
    change: p.change,
    created_at: p.created_at,
    updated_at: p.updated_at,
    expires_at: p.expires_at,
  };
}

/** A restore point the applier reports (a workspace write takes its own, after `beforeWrite`). */
const restoreField = (o: { readonly restore?: string }) => (o.restore === undefined ? {} : { restore: o.restore });
const restoreOf = (p: Proposal) => ('restore' in p && p.restore !== undefined ? { restore: p.restore } : {});
