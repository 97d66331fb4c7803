// create_pull_request: opens a PR from the bound branch (never named by the agent) into the perimeter's base. Refused
// whole, before any write, when the branch's net change touches a path outside `write` or a protected one (the
// judgement of push_files over merge base → head), when title or body trips the secret scanner, or at `max_open`.
// One open PR per branch and base: a second call answers the existing one (issue 22).
import { scanBytesForSecrets, secretsRefusal } from '../../core/index.js';
import { defineTool } from '../tool.js';
import { answer, input, judge, openPulls, Output, outputOf, type Args, type Raw } from './pr-open.js';
import { NO_PULLS, pullsOf, renderPull } from './pr-view.js';
import { proposePull } from './pr-propose.js';

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
    const judged = await judge(a, ctx, on.binding, pulls, binding.branch);
    if (judged.kind !== 'open') return judged.outcome;
    const base = judged.base;
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
  filter: outputOf,
  // On a local perimeter the PR is a merge proposal: only invoke's `propose` makes one (pr-propose.ts).
  proposable: proposePull,
  notFound: () => 'Not found: this branch cannot be opened as a pull request here.',
  render: (o, fence) => (o.existing ? 'existing pull request\n' : 'opened\n') + renderPull(o, fence),
});
