import * as z from 'zod/v4';
import { cutStatus, type RawStatusEntry, type StatusView } from '../../core/index.js';
import type { StatusListing } from '../../workspace/types.js';
import { rootTargetOf } from '../schemas.js';
import { field } from '../render.js';
import { defineTool } from '../tool.js';
import { notCheckedOut, onTree, rawStatus, readableOnly, readOnly, up, wsRootFields } from '../workspace.js';

const Change = z.object({ path: z.string(), change: z.string(), previous_path: z.string().optional() });

/** The status shape shared with scope_summary and the brief's counts. */
export const StatusOut = z.object({
  clean: z.boolean(),
  staged: z.array(Change),
  unstaged: z.array(Change),
  untracked: z.array(z.string()),
  conflicted: z.array(z.object({ path: z.string(), kind: z.string() })),
  counts: z.object({ staged: z.number(), unstaged: z.number(), untracked: z.number(), conflicted: z.number() }),
  truncated: z.boolean().describe('True when git printed more than the status cap: the lists are then a prefix.'),
});
type Output = z.infer<typeof StatusOut>;

/** Parsed status entries in the core's shape. */
export function rawEntries(l: StatusListing): RawStatusEntry[] {
  return l.entries.flatMap((e) => {
    const r = rawStatus(e);
    return r ? [r] : [];
  });
}

/** A status view as served (copied field by field, so nothing extra ever rides along). */
function render(o: Output): string {
  const lines = [`clean ${o.clean}${o.truncated ? ' (truncated)' : ''}`];
  for (const e of o.staged)
    lines.push(
      `staged ${e.change} ${field(e.path)}${e.previous_path !== undefined ? ` from ${field(e.previous_path)}` : ''}`,
    );
  for (const e of o.unstaged)
    lines.push(
      `unstaged ${e.change} ${field(e.path)}${e.previous_path !== undefined ? ` from ${field(e.previous_path)}` : ''}`,
    );
  for (const p of o.untracked) lines.push(`untracked ${field(p)}`);
  for (const e of o.conflicted) lines.push(`conflicted ${e.kind} ${field(e.path)}`);
  return lines.join('\n');
}

export const statusOut = (v: StatusView, truncated: boolean): Output => ({
  clean: v.clean,
  staged: [...v.staged],
  unstaged: [...v.unstaged],
  untracked: [...v.untracked],
  conflicted: [...v.conflicted],
  counts: { ...v.counts },
  truncated,
});

export const workspaceStatus = defineTool<object, StatusListing, Output>({
  name: 'workspace_status',
  access: 'read',
  surfaces: ['agent', 'root'],
  requires: 'worktree',
  pathMode: 'all',
  description: 'Staged, unstaged, untracked and conflicted files of the working tree.',
  annotations: readOnly('Working-tree status'),
  agentInput: z.strictObject({}),
  rootInput: z.strictObject(wsRootFields),
  output: StatusOut,
  paths: () => [],
  rootTarget: rootTargetOf,
  run: (_a, ctx) => onTree(ctx, async (t) => up(await t.status(readableOnly(ctx)))),
  filter: (l, _a, ctx) => ({ kind: 'ok', value: statusOut(cutStatus(rawEntries(l), ctx.scope), l.truncated) }),
  render,
  notFound: () => notCheckedOut('workspace_status'),
});
