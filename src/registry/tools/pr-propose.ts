// create_pull_request on a local perimeter (issue 22): git on disk keeps no PRs, so the PR is a merge proposal of the
// bound branch into the base, held by invoke like any proposal and applied once a person approves (its net change,
// frozen here as files, written on the base). The checks are GitHub's (pr-open.ts); the number is the repository's.
import { pullsAreProposals, type AgentBinding, type Proposal } from '../../core/index.js';
import type { Comparison, FileWrite, PullSummary, UpResult, Upstream } from '../../upstream/types.js';
import { nextPullNumber } from '../local-pulls.js';
import type { DraftOutcome, Proposable, ToolContext } from '../tool.js';
import { judge, outputOf, type Args, type Raw } from './pr-open.js';
import { cutPull, pullsOf, type CutPull } from './pr-view.js';

/** An upstream failure as a draft outcome. */
const failure = (r: UpResult<unknown> & { ok: false }): DraftOutcome => ({ kind: 'error', error: r.error });

/** A raw answer (a refusal, the open PR) as a draft outcome: nothing is proposed. */
function answered(a: Args, r: UpResult<Raw>): DraftOutcome {
  if (!r.ok) return failure(r);
  const out = outputOf(r.value);
  switch (out.kind) {
    case 'ok':
      return { kind: 'answer', value: out.value };
    case 'refused':
      return { kind: 'refused', message: out.message };
    case 'not_found':
    case 'error':
      return {
        kind: 'refused',
        message: `Not found: this branch cannot be opened as a pull request here (${a.base ?? ''}).`,
      };
    default:
      return out satisfies never;
  }
}

/** The net change as files: what a squash of `head` onto the base writes and deletes. */
async function frozenFiles(
  upstream: Upstream,
  repo: string,
  head: string,
  cmp: Comparison,
): Promise<UpResult<{ files: FileWrite[]; deletes: string[] } | string>> {
  const deletes = cmp.files.flatMap((f) =>
    f.status === 'removed'
      ? [f.path]
      : f.previous_path !== undefined && f.status === 'renamed'
        ? [f.previous_path]
        : [],
  );
  const written = cmp.files.filter((f) => f.status !== 'removed').map((f) => f.path);
  const read = await upstream.readFiles(repo, head, written);
  if (!read.ok) return read;
  const files: FileWrite[] = [];
  for (const r of read.value) {
    if (!r.ok) return { ok: true, value: `${r.path} could not be read (${r.error.message})` };
    // A link would be written as a file holding its target: refused rather than changed in kind.
    if (r.symlink === true)
      return { ok: true, value: 'the branch changes a symbolic link, which a local pull request cannot carry' };
    const bytes = Buffer.from(r.bytes);
    const text = bytes.toString('utf8');
    const utf8 = Buffer.from(text, 'utf8').equals(bytes);
    files.push({ path: r.path, content: utf8 ? text : bytes.toString('base64'), encoding: utf8 ? 'utf-8' : 'base64' });
  }
  return { ok: true, value: { files, deletes } };
}

/**
 * Whether the base changed one of the net change's paths since the branch left it to other bytes than the head's: a
 * squash would drop that change. A path both sides brought to the same bytes (the base holds an earlier PR of this
 * branch) is no conflict, as in a three-way merge.
 */
async function conflicts(
  upstream: Upstream,
  repo: string,
  cmp: Comparison,
  baseHead: string,
  head: string,
): Promise<UpResult<boolean>> {
  if (cmp.merge_base === baseHead) return { ok: true, value: false };
  const moved = await upstream.compare(repo, cmp.merge_base, baseHead);
  if (!moved.ok) return moved;
  if (!moved.value.files_complete) return { ok: true, value: true };
  const mine = new Set(
    cmp.files.flatMap((f) => (f.previous_path === undefined ? [f.path] : [f.path, f.previous_path])),
  );
  const both = [
    ...new Set(moved.value.files.flatMap((f) => [f.path, ...(f.previous_path === undefined ? [] : [f.previous_path])])),
  ].filter((p) => mine.has(p));
  if (both.length === 0) return { ok: true, value: false };
  const [atBase, atHead] = await Promise.all([
    upstream.readFiles(repo, baseHead, both),
    upstream.readFiles(repo, head, both),
  ]);
  if (!atBase.ok) return atBase;
  if (!atHead.ok) return atHead;
  const same = (i: number) => {
    const x = atBase.value[i];
    const y = atHead.value[i];
    if (x === undefined || y === undefined) return false;
    if (!x.ok || !y.ok) return !x.ok && !y.ok && x.error.code === 'not_found' && y.error.code === 'not_found';
    return Buffer.from(x.bytes).equals(Buffer.from(y.bytes)) && x.symlink === y.symlink;
  };
  return { ok: true, value: both.some((_, i) => !same(i)) };
}

async function draft(a: Args, ctx: ToolContext): Promise<DraftOutcome> {
  const on = pullsOf(ctx);
  if (on === undefined || ctx.proposals === undefined)
    return {
      kind: 'refused',
      message: 'Pull requests are not available on this repository (its upstream keeps none).',
    };
  const { binding, pulls } = on;
  const up = ctx.upstream;
  // The head is read once: what is judged is what is frozen and shown to the approver.
  const head = await up.branchHead(binding.repo, binding.branch);
  if (!head.ok) return failure(head);
  const judged = await judge(a, ctx, binding, pulls, head.value);
  if (judged.kind === 'answered') return answered(a, judged.outcome);
  const { base, cmp } = judged;
  const baseHead = await up.branchHead(binding.repo, base);
  if (!baseHead.ok) return failure(baseHead);
  const clash = await conflicts(up, binding.repo, cmp, baseHead.value, head.value);
  if (!clash.ok) return failure(clash);
  if (clash.value)
    return {
      kind: 'refused',
      message: `This branch conflicts with ${base}: both changed the same files since they diverged. Merge ${base} into this branch first (propose_merge), then open the pull request.`,
    };
  const frozen = await frozenFiles(up, binding.repo, head.value, cmp);
  if (!frozen.ok) return failure(frozen);
  if (typeof frozen.value === 'string')
    return { kind: 'refused', message: `Cannot open a pull request here: ${frozen.value}. Nothing was proposed.` };
  const number = await nextPullNumber(ctx.proposals, binding.repo);
  const draftFlag = a.draft ?? binding.pulls?.draft ?? true;
  const { files, deletes } = frozen.value;
  const paths = [...files.map((f) => f.path), ...deletes];
  // The agent's answer is the PR as get_pull_request would show it, cut from the very files frozen here.
  const cutOf = await cutFor(
    ctx,
    binding,
    { number, head: head.value, base, baseHead: baseHead.value, a, draftFlag },
    cmp,
  );
  if (!cutOf.ok) return failure(cutOf);
  const cut = cutOf.value;
  return {
    kind: 'draft',
    draft: {
      change: {
        kind: 'pull_request',
        number,
        into: base,
        head: head.value,
        title: a.title,
        body: a.body,
        draft: draftFlag,
        files,
        deletes,
      },
      facts: { paths, protected_paths: paths.filter((p) => binding.isProtected(p)) },
      base: baseHead.value,
      answer: (p: Proposal) => {
        const shown = outputOf({
          kind: 'pull',
          cut: { ...cut, pull: { ...cut.pull, created_at: p.created_at, updated_at: p.updated_at } },
          existing: false,
        });
        return shown.kind === 'ok' ? shown.value : undefined;
      },
    },
  };
}

/** The cut of the PR about to be proposed (no files of it are hidden: the net change was judged writable). */
async function cutFor(
  ctx: ToolContext,
  binding: AgentBinding,
  o: { number: number; head: string; base: string; baseHead: string; a: Args; draftFlag: boolean },
  cmp: Comparison,
): Promise<UpResult<CutPull<PullSummary>>> {
  const pull: PullSummary = {
    number: o.number,
    title: o.a.title,
    body: o.a.body,
    state: 'open',
    draft: o.draftFlag,
    head_ref: binding.branch,
    head_sha: o.head,
    head_repo: binding.repo,
    base_ref: o.base,
    base_sha: o.baseHead,
    author: null,
    created_at: '',
    updated_at: '',
    closed_at: null,
    merged_at: null,
  };
  const cut = await cutPull(ctx, pull, { files: cmp.files, complete: cmp.files_complete });
  if (!cut.ok) return cut;
  return {
    ok: true,
    value: cut.value ?? { pull, files: [], stats: { additions: 0, deletions: 0, total: 0 }, omitted_count: 0 },
  };
}

/** Local perimeters with `pulls`: every PR opening waits for a person. */
export const proposePull: Proposable<Args> = {
  required: pullsAreProposals,
  draft,
};
