// The read rule for revisions an agent names in a write (issue 19): a branch must be on the allowlist, and a full
// commit id must be one the agent could read with get_commit on some binding of its perimeter: reachable from the
// bound branch or an allowlisted one, and visible (it touches a readable file). Anything else reads exactly like a
// commit that does not exist, so a write is never an existence oracle and never reaches a hidden branch's history.
import { filterCommit, stepRevisions, type Scope, type WorkspaceStep } from '../core/index.js';
import type { UpResult, Upstream } from '../upstream/types.js';

const FULL_ID = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

/** What the check needs of a binding: the repository, the scope, and its branches (the bound one first). */
export interface RevisionReader {
  readonly upstream: Upstream;
  readonly repo: string;
  readonly scope: Scope;
  readonly branches: readonly string[];
}

/** The branch through which `rev` is readable (itself for an allowlisted branch name), or undefined when it is not. */
export async function readableVia(r: RevisionReader, rev: string): Promise<UpResult<string | undefined>> {
  if (!FULL_ID.test(rev)) return { ok: true, value: r.branches.includes(rev) ? rev : undefined };
  for (const branch of r.branches) {
    const head = await r.upstream.branchHead(r.repo, branch);
    if (!head.ok) {
      if (head.error.code === 'not_found') continue;
      return head;
    }
    const reach = await r.upstream.isAncestor(r.repo, rev, head.value);
    if (!reach.ok) return reach;
    if (!reach.value) continue;
    // Visibility does not depend on the branch that reaches the commit: judged once, as get_commit judges it.
    const c = await r.upstream.getCommit(r.repo, rev);
    if (!c.ok) return c.error.code === 'not_found' ? { ok: true, value: undefined } : c;
    return { ok: true, value: filterCommit(c.value, r.scope).kind === 'visible' ? branch : undefined };
  }
  return { ok: true, value: undefined };
}

/** The one answer for a revision the agent may not read, from the argument alone (a made-up id gets the same). */
export const revisionNotFound = (tool: string, rev: string): string =>
  `${tool} refused: no commit or branch "${rev}" on this perimeter's branches. Nothing was proposed; use list_commits to find commit SHAs.`;

/** A step's revisions that fail the read rule (first one) or, for each, the branch it is read through. */
export async function judgeRevisions(
  r: RevisionReader,
  step: WorkspaceStep,
): Promise<UpResult<{ unreadable: string } | { via: ReadonlyMap<string, string> }>> {
  const via = new Map<string, string>();
  for (const rev of stepRevisions(step)) {
    const b = await readableVia(r, rev);
    if (!b.ok) return b;
    if (b.value === undefined) return { ok: true, value: { unreadable: rev } };
    via.set(rev, b.value);
  }
  return { ok: true, value: { via } };
}
