// What opening a PR checks and answers, on both upstreams (create_pull_request on GitHub, its proposal on local git).
import * as z from 'zod/v4';
import { netChangeRefusal, type AgentBinding } from '../../core/index.js';
import type { Comparison, PullRequests, PullSummary, UpResult } from '../../upstream/types.js';
import type { ToolContext, ToolOutcome } from '../tool.js';
import { cutPull, PullOut, pullView, type CutPull } from './pr-view.js';

export type Args = { title: string; body: string; base?: string | undefined; draft?: boolean | undefined };
export const input = z.strictObject({
  title: z.string().min(1).max(256),
  body: z.string().max(65_536),
  base: z.string().min(1).max(255).optional().describe("Default: this perimeter's base branch."),
  draft: z.boolean().optional().describe("Default: this perimeter's setting (draft unless it says otherwise)."),
});

export const Output = PullOut.extend({
  existing: z.boolean().describe('True when this branch already had this open PR.'),
});
export type Output = z.infer<typeof Output>;

export type Raw =
  | { readonly kind: 'pull'; readonly cut: CutPull<PullSummary>; readonly existing: boolean }
  | { readonly kind: 'refused'; readonly message: string };

/** Most host pages of one branch's open PRs read (100 each; a branch has one open PR per base). */
const MAX_HOST_PAGES = 10;

export const refused = (message: string): UpResult<Raw> => ({ ok: true, value: { kind: 'refused', message } });

/** The base a call targets, or undefined when it is not one of the perimeter's. */
export function baseOf(a: Args, b: AgentBinding): string | undefined {
  const bases = b.pulls?.bases ?? [];
  const base = a.base ?? bases[0];
  return base !== undefined && bases.includes(base) ? base : undefined;
}

/**
 * The perimeter's open PRs (its branches into its bases) and, among them, this branch's into `base`. Asked branch by
 * branch: one listing of the repository's open PRs pages through hidden ones too, so under a page cap the perimeter's
 * own PRs were counted (and this branch's found) only while few others were open.
 */
export async function openPulls(
  pulls: PullRequests,
  b: AgentBinding,
  base: string,
): Promise<UpResult<{ count: number; mine: PullSummary | undefined }>> {
  let count = 0;
  let mine: PullSummary | undefined;
  const bases = b.pulls?.bases ?? [];
  for (const head of b.branches) {
    for (let page = 1; page <= MAX_HOST_PAGES; page++) {
      const listed = await pulls.list(b.repo, { head, state: 'open', page });
      if (!listed.ok) return listed;
      for (const p of listed.value.pulls) {
        if (p.head_ref !== head || !bases.includes(p.base_ref)) continue;
        count++;
        if (head === b.branch && p.base_ref === base) mine ??= p;
      }
      if (!listed.value.hasMore) break;
    }
  }
  return { ok: true, value: { count, mine } };
}

/** The PR's view; a PR whose files the agent cannot read (all write-only) still answers, with nothing counted. */
export async function answer(ctx: ToolContext, pull: PullSummary, existing: boolean): Promise<UpResult<Raw>> {
  const cut = await cutPull(ctx, pull);
  if (!cut.ok) return cut;
  const value = cut.value ?? { pull, files: [], stats: { additions: 0, deletions: 0, total: 0 }, omitted_count: 0 };
  return { ok: true, value: { kind: 'pull', cut: value, existing } };
}

/** What the checks before opening decide: an answer already (a refusal, the open PR, a failure), or open it. */
export type Judged =
  | { readonly kind: 'answered'; readonly outcome: UpResult<Raw> }
  | { readonly kind: 'open'; readonly base: string; readonly cmp: Comparison };

/**
 * The checks every PR opening passes, on both upstreams: the base, this branch's open PR (answered), `max_open`, then
 * the net change a merge would bring (merge base → `head`), judged whole like a push of every path.
 */
export async function judge(
  a: Args,
  ctx: ToolContext,
  binding: AgentBinding,
  pulls: PullRequests,
  head: string,
): Promise<Judged> {
  const answered = (outcome: UpResult<Raw>): Judged => ({ kind: 'answered', outcome });
  const base = baseOf(a, binding);
  if (base === undefined)
    return answered(
      refused(`No base branch "${a.base ?? ''}" for pull requests here; leave base out to use the default.`),
    );
  const open = await openPulls(pulls, binding, base);
  if (!open.ok) return answered(open);
  if (open.value.mine !== undefined) return answered(await answer(ctx, open.value.mine, true));
  const max = binding.pulls?.maxOpen ?? 0;
  if (open.value.count >= max)
    return answered(
      refused(
        `This perimeter already has ${open.value.count} open pull requests (at most ${max}); wait until one is merged or closed.`,
      ),
    );
  const cmp = await ctx.upstream.compare(binding.repo, base, head);
  if (!cmp.ok) return answered(cmp);
  if (!cmp.value.files_complete)
    return answered(refused('The branch changes too many files to be judged; split the work into smaller branches.'));
  if (cmp.value.ahead_by === 0 || cmp.value.files.length === 0)
    return answered(refused(`Nothing to open: this branch has no changes against ${base}. Push your work first.`));
  const paths = cmp.value.files.flatMap((f) => (f.previous_path === undefined ? [f.path] : [f.previous_path, f.path]));
  const refusal = netChangeRefusal(paths, binding);
  if (refusal !== undefined) return answered(refused(refusal));
  return { kind: 'open', base, cmp: cmp.value };
}

/** The agent's answer from a raw one (shared with the local proposal path). */
export function outputOf(raw: Raw): ToolOutcome<Output> {
  return raw.kind === 'refused'
    ? { kind: 'refused', message: raw.message }
    : { kind: 'ok', value: { ...pullView(raw.cut), existing: raw.existing } };
}
