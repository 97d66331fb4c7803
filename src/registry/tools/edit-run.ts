// How an edit lands (or waits for a person): planned on the content at one head, committed on that head. A branch
// that moved in between is taken by the upstream only when the commits since left the edited files alone; otherwise
// the edits are planned again on the new content, a bounded number of times, and never rebased blind.
import type { DraftOutcome, ToolContext } from '../tool.js';
import type { UpResult } from '../../upstream/types.js';
import { commitJudged, type Pushed } from './commit-write.js';
import { planEdits, type FileEdits } from './edit-plan.js';

/** Plans an edit call gets: the first, and re-plans on content that changed under it. */
export const EDIT_ATTEMPTS = 3;

export const BRANCH_GONE =
  'Not found: the bound branch does not exist any more. Ask the operator for a new connection URL.';

/** Plans and commits an edit call; a conflict on moved content plans it again on the new head. */
export async function runEdits(
  ctx: ToolContext,
  message: string,
  files: readonly FileEdits[],
): Promise<UpResult<Pushed>> {
  let last: UpResult<Pushed> | undefined;
  let lastHead: string | undefined;
  for (let attempt = 0; attempt < EDIT_ATTEMPTS; attempt++) {
    const head = await ctx.upstream.branchHead(ctx.target.repo, ctx.target.ref);
    if (!head.ok) return head;
    // A conflict the branch did not cause (a working tree holding uncommitted work there) is answered as it is.
    if (last !== undefined && head.value === lastHead) return last;
    const plan = await planEdits(ctx, head.value, message, files);
    switch (plan.kind) {
      case 'refused':
        return { ok: true, value: { refused: plan.message } };
      case 'error':
        return { ok: false, error: plan.error };
      case 'write':
        break;
      default: {
        const never: never = plan;
        throw new Error(`unknown edit plan ${JSON.stringify(never)}`);
      }
    }
    lastHead = head.value;
    last = await commitJudged(ctx, {
      message,
      files: plan.files.map((f) => ({ path: f.path, content: f.content, encoding: 'utf-8' as const })),
      deletes: [],
      base: { head: head.value, unchanged: [] },
    });
    if (last.ok || last.error.code !== 'conflict') return last;
  }
  return last ?? { ok: false, error: { code: 'not_found', message: BRANCH_GONE } };
}

/**
 * The proposal an edit call makes where writes wait for approval: the exact bytes the edits produce on the current
 * head, recorded as the whole files with that head as the proposal's base. What the person approves is what is
 * committed; a branch that changes these files before approval makes the proposal stale, never re-applied.
 */
export async function draftEdits(
  ctx: ToolContext,
  a: {
    message: string;
    files: readonly FileEdits[];
    reason?: string | undefined;
    idempotency_key?: string | undefined;
  },
): Promise<DraftOutcome> {
  const head = await ctx.upstream.branchHead(ctx.target.repo, ctx.target.ref);
  if (!head.ok) return { kind: 'error', error: head.error };
  const plan = await planEdits(ctx, head.value, a.message, a.files);
  switch (plan.kind) {
    case 'refused':
      return { kind: 'refused', message: plan.message };
    case 'error':
      return { kind: 'error', error: plan.error };
    case 'write':
      break;
    default: {
      const never: never = plan;
      throw new Error(`unknown edit plan ${JSON.stringify(never)}`);
    }
  }
  const paths = plan.files.map((f) => f.path);
  const isProtected = ctx.binding.surface === 'agent' ? ctx.binding.isProtected : () => false;
  return {
    kind: 'draft',
    draft: {
      change: {
        kind: 'push_files',
        message: a.message,
        files: plan.files.map((f) => ({ path: f.path, content: f.content, encoding: 'utf-8' })),
        deletes: [],
      },
      facts: { paths, protected_paths: paths.filter(isProtected) },
      base: head.value,
      ...(a.reason === undefined ? {} : { agentReason: a.reason }),
      ...(a.idempotency_key === undefined ? {} : { idempotencyKey: a.idempotency_key }),
    },
  };
}
