import * as z from 'zod/v4';
import {
  cutStatus,
  cutSubmodules,
  touchesReadable,
  type PresenceView,
  type StatusView,
  type SubmoduleView,
} from '../../core/index.js';
import type { UpResult } from '../../upstream/types.js';
import type { HeadInfo, Operation, WorkTree } from '../../workspace/types.js';
import { visibleHistory } from '../history.js';
import { presenceFor } from '../presence.js';
import { rootTargetOf } from '../schemas.js';
import { field, subjectOf } from '../render.js';
import { defineTool, type ToolContext } from '../tool.js';
import { notCheckedOut, onTree, readableOnly, readOnly, up, wsRootFields } from '../workspace.js';
import { rawEntries } from './workspace_status.js';

/** Recent commits in a brief (FluxGit's default). */
export const BRIEF_COMMITS = 10;

const Output = z.object({
  branch: z.string(),
  upstream: z
    .object({ name: z.string(), ahead: z.number(), behind: z.number() })
    .nullable()
    .describe(
      'The upstream, when it is a branch of this connection; counts are of commits touching files you can read.',
    ),
  operation: z.enum(['none', 'merge', 'rebase', 'cherry_pick', 'revert', 'bisect']),
  working_tree: z.object({
    clean: z.boolean(),
    staged: z.number(),
    unstaged: z.number(),
    untracked: z.number(),
    conflicted: z.number(),
  }),
  submodules: z.object({ total: z.number(), drifted: z.number(), uninitialized: z.number() }),
  recent_commits: z.array(z.object({ sha: z.string(), subject: z.string() })),
  hints: z.array(z.string()),
});
type Output = z.infer<typeof Output>;

interface Raw {
  readonly head: HeadInfo;
  readonly upstream: Output['upstream'];
  readonly operation: Operation;
  readonly status: StatusView;
  readonly submodules: readonly SubmoduleView[];
  readonly commits: readonly { sha: string; message: string }[];
  /** Other agents on this branch, as the asker may see them (issue 23): only counted here, `activity` says more. */
  readonly others: PresenceView;
}

/** Ahead/behind over readable commits only, and only against an upstream this connection may name. */
async function upstreamOf(ctx: ToolContext, t: WorkTree, head: HeadInfo): Promise<UpResult<Output['upstream']>> {
  const name = head.upstream;
  if (name === null) return { ok: true, value: null };
  if (ctx.binding.surface !== 'agent') {
    const c = up(await t.upstreamCounts(['']));
    if (!c.ok) return c;
    return {
      ok: true,
      value: c.value.kind === 'counted' ? { name, ahead: c.value.ahead, behind: c.value.behind } : null,
    };
  }
  // A remote-tracking or unlisted branch is a ref the agent cannot see: the brief reads as if none were set.
  if (!ctx.binding.branches.includes(name)) return { ok: true, value: null };
  const count = async (base: string, tip: string): Promise<UpResult<number>> => {
    const c = await ctx.upstream.compare(ctx.target.repo, base, tip);
    return c.ok ? { ok: true, value: c.value.commits.filter((x) => touchesReadable(x, ctx.scope) === true).length } : c;
  };
  const ahead = await count(name, ctx.target.ref);
  if (!ahead.ok) return ahead;
  const behind = await count(ctx.target.ref, name);
  if (!behind.ok) return behind;
  return { ok: true, value: { name, ahead: ahead.value, behind: behind.value } };
}

function hints(r: Raw): string[] {
  const out: string[] = [];
  const o = r.others;
  const busy = o.agents.length + o.other_agents;
  const touching = o.writes.length + o.proposals.length + o.leases.length;
  if (busy + touching > 0)
    out.push(
      `${busy} other agent(s) active on this branch${touching > 0 ? `, ${touching} change(s) or lease(s) on paths you can read` : ''}: activity shows who and where.`,
    );
  const c = r.status.counts;
  if (r.operation !== 'none') out.push(`A ${r.operation.replace('_', '-')} is in progress.`);
  if (c.conflicted > 0)
    out.push(`${c.conflicted} conflicted file(s): conflict_read { path } shows base, ours and theirs.`);
  if (c.staged + c.unstaged + c.untracked > 0)
    out.push('workspace_diff shows the patches (staged: true for the index).');
  if (r.upstream && r.upstream.behind > 0)
    out.push(
      `Behind ${r.upstream.name}: conflict_preflight { with: "${r.upstream.name}" } tells whether merging it conflicts.`,
    );
  if (out.length === 0) out.push('Working tree clean.');
  return out.slice(0, 3);
}

function render(o: Output): string {
  const w = o.working_tree;
  const s = o.submodules;
  return [
    `branch ${field(o.branch)}${o.upstream ? ` upstream ${field(o.upstream.name)} ahead ${o.upstream.ahead} behind ${o.upstream.behind}` : ''}, operation ${o.operation}`,
    `working tree: ${w.clean ? 'clean' : `${w.staged} staged, ${w.unstaged} unstaged, ${w.untracked} untracked, ${w.conflicted} conflicted`}; submodules ${s.total} (${s.drifted} drifted, ${s.uninitialized} uninitialized)`,
    ...o.recent_commits.map((c) => `${c.sha} ${subjectOf(c.subject)}`),
    ...o.hints,
  ].join('\n');
}

export const workspaceBrief = defineTool<object, Raw, Output>({
  name: 'workspace_brief',
  access: 'read',
  surfaces: ['agent', 'root'],
  requires: 'worktree',
  pathMode: 'all',
  description:
    'Orientation in one call: branch, upstream ahead/behind, operation in progress, working-tree counts, recent commits, hints.',
  annotations: readOnly('Workspace brief'),
  agentInput: z.strictObject({}),
  rootInput: z.strictObject(wsRootFields),
  output: Output,
  paths: () => [],
  rootTarget: rootTargetOf,
  run: (_a, ctx) =>
    onTree(ctx, async (t): Promise<UpResult<Raw>> => {
      const [head, operation, status, subs] = [
        up(await t.head()),
        up(await t.operation()),
        up(await t.status(readableOnly(ctx))),
        up(await t.submodules(readableOnly(ctx))),
      ];
      if (!head.ok) return head;
      if (!operation.ok) return operation;
      if (!status.ok) return status;
      if (!subs.ok) return subs;
      const upstream = await upstreamOf(ctx, t, head.value);
      if (!upstream.ok) return upstream;
      const history = await visibleHistory(ctx.upstream, ctx.scope, {
        repo: ctx.target.repo,
        ref: ctx.target.ref,
        readGlobs: ctx.binding.surface === 'agent' ? ctx.binding.readGlobs : undefined,
        trustPrefixes: ctx.binding.surface !== 'agent',
        path: undefined,
        skip: 0,
        limit: BRIEF_COMMITS,
      });
      if (!history.ok) return history;
      return {
        ok: true,
        value: {
          head: head.value,
          upstream: upstream.value,
          operation: operation.value,
          status: cutStatus(rawEntries(status.value), ctx.scope),
          submodules: cutSubmodules(
            subs.value.map((s) => ({ path: s.path, recorded: s.recorded, checked_out: s.checkedOut })),
            ctx.scope,
          ),
          commits: history.value.commits.map((c) => ({ sha: c.sha, message: c.message })),
          others: await presenceFor(ctx, ''),
        },
      };
    }),
  filter: (r, _a, ctx) => {
    const c = r.status.counts;
    const value: Output = {
      branch: ctx.target.ref,
      upstream: r.upstream,
      operation: r.operation,
      working_tree: { clean: r.status.clean, ...c },
      submodules: {
        total: r.submodules.length,
        drifted: r.submodules.filter((s) => s.state === 'drifted').length,
        uninitialized: r.submodules.filter((s) => s.state === 'uninitialized').length,
      },
      recent_commits: r.commits.map((x) => ({ sha: x.sha.slice(0, 12), subject: x.message.split('\n')[0] ?? '' })),
      hints: hints(r),
    };
    return { kind: 'ok', value };
  },
  render,
  notFound: () => notCheckedOut('workspace_brief'),
});
