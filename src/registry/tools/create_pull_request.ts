// create_pull_request: opens a PR from the bound branch (never named by the agent) into the perimeter's base. Refused
// whole, before any write, when the branch's net change touches a path outside `write` or a protected one (the
// judgement of push_files over merge base → head), when title or body trips the secret scanner, or at `max_open`.
// One open PR per branch and base: a second call answers the existing one (issue 22).
import * as z from 'zod/v4';
import { netChangeRefusal, scanBytesForSecrets, secretsRefusal, type AgentBinding } from '../../core/index.js';
import type { PullRequests, PullSummary, UpResult } from '../../upstream/types.js';
import { defineTool, type ToolContext } from '../tool.js';
import { cutPull, NO_PULLS, PullOut, pullsOf, pullView, renderPull, type CutPull } from './pr-view.js';

type Args = { title: string; body: string; base?: string | undefined; draft?: boolean | undefined };
const input = z.strictObject({
  title: z.string().min(1).max(256),
  body: z.string().max(65_536),
  base: z.string().min(1).max(255).optional().describe("Default: this perimeter's base branch."),
  draft: z.boolean().optional().describe("Default: this perimeter's setting (draft unless it says otherwise)."),
});

const Output = PullOut.extend({ existing: z.boolean().describe('True when this branch already had this open PR.') });
type Output = z.infer<typeof Output>;

type Raw =
  | { readonly kind: 'pull'; readonly cut: CutPull<PullSummary>; readonly existing: boolean }
  | { readonly kind: 'refused'; readonly message: string };

/** Most host pages of open PRs read to count the perimeter's (100 each). */
const MAX_HOST_PAGES = 10;

const refused = (message: string): UpResult<Raw> => ({ ok: true, value: { kind: 'refused', message } });

/** The base a call targets, or undefined when it is not one of the perimeter's. */
function baseOf(a: Args, b: AgentBinding): string | undefined {
  const bases = b.pulls?.bases ?? [];
  const base = a.base ?? bases[0];
  return base !== undefined && bases.includes(base) ? base : undefined;
}

/** The perimeter's open PRs (its branches into its bases) and, among them, this branch's into `base`. */
async function openPulls(
  pulls: PullRequests,
  b: AgentBinding,
  base: string,
): Promise<UpResult<{ count: number; mine: PullSummary | undefined }>> {
  let count = 0;
  let mine: PullSummary | undefined;
  const bases = b.pulls?.bases ?? [];
  for (let page = 1; page <= MAX_HOST_PAGES; page++) {
    const listed = await pulls.list(b.repo, { state: 'open', page });
    if (!listed.ok) return listed;
    for (const p of listed.value.pulls) {
      if (!b.branches.includes(p.head_ref) || !bases.includes(p.base_ref)) continue;
      count++;
      if (p.head_ref === b.branch && p.base_ref === base) mine ??= p;
    }
    if (!listed.value.hasMore) break;
  }
  return { ok: true, value: { count, mine } };
}

/** The PR's view; a PR whose files the agent cannot read (all write-only) still answers, with nothing counted. */
async function answer(ctx: ToolContext, pull: PullSummary, existing: boolean): Promise<UpResult<Raw>> {
  const cut = await cutPull(ctx, pull);
  if (!cut.ok) return cut;
  const value = cut.value ?? { pull, files: [], stats: { additions: 0, deletions: 0, total: 0 }, omitted_count: 0 };
  return { ok: true, value: { kind: 'pull', cut: value, existing } };
}

export const createPullRequest = defineTool<Args, Raw, Output>({
  name: 'create_pull_request',
  access: 'write',
  surfaces: ['agent'],
  requires: 'pulls',
  pathMode: 'all',
  description:
    "Open a pull request from this branch into this perimeter's base (draft by default). Refused if the branch's changes touch files outside your write scope. If this branch already has one open, returns it.",
  annotations: {
    title: 'Open a pull request',
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  },
  agentInput: input,
  rootInput: input,
  output: Output,
  paths: () => [],
  rootTarget: () => ({ repo: '', ref: '' }),
  guard: (a, ctx) => {
    if (ctx.binding.surface !== 'agent' || ctx.binding.allowSecrets) return undefined;
    const scan = scanBytesForSecrets(
      [
        { path: 'title', bytes: Buffer.from(a.title, 'utf8') },
        { path: 'body', bytes: Buffer.from(a.body, 'utf8') },
      ],
      { allowCompressed: true },
    );
    return scan.findings.length > 0 ? secretsRefusal(scan.findings) : undefined;
  },
  run: async (a, ctx) => {
    const on = pullsOf(ctx);
    if (on === undefined) return { ok: false, error: NO_PULLS };
    const { binding, pulls } = on;
    const base = baseOf(a, binding);
    if (base === undefined)
      return refused(`No base branch "${a.base ?? ''}" for pull requests here; leave base out to use the default.`);
    const open = await openPulls(pulls, binding, base);
    if (!open.ok) return open;
    if (open.value.mine !== undefined) return answer(ctx, open.value.mine, true);
    const max = binding.pulls?.maxOpen ?? 0;
    if (open.value.count >= max)
      return refused(
        `This perimeter already has ${open.value.count} open pull requests (at most ${max}); wait until one is merged or closed.`,
      );
    // The net change a merge would bring: merge base → head, judged whole like a push of every path.
    const cmp = await ctx.upstream.compare(binding.repo, base, binding.branch);
    if (!cmp.ok) return cmp;
    if (!cmp.value.files_complete)
      return refused('The branch changes too many files to be judged; split the work into smaller branches.');
    if (cmp.value.ahead_by === 0 || cmp.value.files.length === 0)
      return refused(`Nothing to open: this branch has no changes against ${base}. Push your work first.`);
    const paths = cmp.value.files.flatMap((f) =>
      f.previous_path === undefined ? [f.path] : [f.previous_path, f.path],
    );
    const refusal = netChangeRefusal(paths, binding);
    if (refusal !== undefined) return refused(refusal);
    const made = await pulls.create(binding.repo, {
      head: binding.branch,
      base,
      title: a.title,
      body: a.body,
      draft: a.draft ?? binding.pulls?.draft ?? true,
    });
    if (made.ok) return answer(ctx, made.value, false);
    if (made.error.code !== 'conflict') return made;
    // Opened meanwhile by another call: answer that one.
    const again = await openPulls(pulls, binding, base);
    if (!again.ok) return again;
    return again.value.mine === undefined ? made : answer(ctx, again.value.mine, true);
  },
  filter: (raw) =>
    raw.kind === 'refused'
      ? { kind: 'refused', message: raw.message }
      : { kind: 'ok', value: { ...pullView(raw.cut), existing: raw.existing } },
  notFound: () => 'Not found: this branch cannot be opened as a pull request here.',
  render: (o, fence) => (o.existing ? 'existing pull request\n' : 'opened\n') + renderPull(o, fence),
});
