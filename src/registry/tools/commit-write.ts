import { judgeChange, normalizePath } from '../../core/index.js';
import type { FileWrite, UpResult, WriteBase, WriteResult } from '../../upstream/types.js';
import { commitMessage } from '../commit-identity.js';
import type { ToolContext } from '../tool.js';

/** What the upstream answered, or the refusal our change check (or a tool's own precondition) gave. */
export type Pushed = WriteResult | { readonly refused: string };

/** A path as the policy judged it (decide validated it already; an invalid one is left for the upstream to refuse). */
export const norm = (p: string): string => {
  const n = normalizePath(p);
  return n.ok ? n.value : p;
};

/** One write the tools hand to the upstream: files, deletes, and the head their content was computed against. */
export interface JudgedWrite {
  readonly message: string;
  readonly files: readonly FileWrite[];
  readonly deletes: readonly string[];
  readonly base?: WriteBase;
}

/**
 * Commits through the upstream's compare-and-swap. The upstream computes what its new tree changes and asks before
 * the ref moves: a file over a directory (or below a file) would otherwise silently remove paths this call was never
 * judged for. The operator surface may write anything, but it too never removes paths it did not name.
 */
export async function commitJudged(ctx: ToolContext, w: JudgedWrite): Promise<UpResult<Pushed>> {
  const binding = ctx.binding;
  let refused: string | undefined;
  const requested = { writes: w.files.map((f) => norm(f.path)), deletes: w.deletes.map(norm) };
  const policy = binding.surface === 'agent' ? binding : { scope: binding.scope, writeGuards: [] };
  const admit = (changed: readonly string[]): boolean => {
    const j = judgeChange(requested, changed, policy);
    refused = j.kind === 'refuse' ? j.message : undefined;
    return j.kind === 'allow';
  };
  const res = await ctx.upstream.commitFiles(ctx.target.repo, ctx.target.ref, {
    // Every agent commit (push, edit) carries the Agent-Id trailer; the operator's messages are kept as written.
    message: commitMessage(ctx, w.message),
    files: w.files,
    deletes: w.deletes,
    author: ctx.author,
    admit,
    ...(w.base === undefined ? {} : { base: w.base }),
  });
  if (!res.ok && refused !== undefined) return { ok: true, value: { refused } };
  return res;
}

/** The `files` an answer echoes: what landed, so an agent can check it against a later read. */
export const writtenFiles = (w: WriteResult): { path: string; blob_sha: string; size: number }[] =>
  w.files.map((f) => ({ path: f.path, blob_sha: f.sha, size: f.size }));
