import * as z from 'zod/v4';
import { cutSubmodules } from '../../core/index.js';
import type { SubmoduleInfo } from '../../workspace/types.js';
import { rootTargetOf } from '../schemas.js';
import { field } from '../render.js';
import { defineTool } from '../tool.js';
import { notCheckedOut, onTree, readableOnly, readOnly, up, wsRootFields } from '../workspace.js';

const Output = z.object({
  submodules: z.array(
    z.object({
      path: z.string(),
      recorded: z.string().describe('Commit the bound head records.'),
      checked_out: z.string().nullable().describe('Commit checked out in the submodule; null when not initialised.'),
      state: z.enum(['clean', 'drifted', 'uninitialized']),
    }),
  ),
  total: z.number(),
});
type Output = z.infer<typeof Output>;

function render(o: Output): string {
  return [
    `${o.total} submodules`,
    ...o.submodules.map(
      (s) => `${s.state} ${field(s.path)} recorded ${s.recorded} checked out ${s.checked_out ?? '-'}`,
    ),
  ].join('\n');
}

export const submoduleStatus = defineTool<object, readonly SubmoduleInfo[], Output>({
  name: 'submodule_status',
  access: 'read',
  surfaces: ['agent', 'root'],
  requires: 'worktree',
  pathMode: 'all',
  description: 'Submodules: recorded vs checked-out commit.',
  annotations: readOnly('Submodule status'),
  agentInput: z.strictObject({}),
  rootInput: z.strictObject(wsRootFields),
  output: Output,
  paths: () => [],
  rootTarget: rootTargetOf,
  run: (_a, ctx) => onTree(ctx, async (t) => up(await t.submodules(readableOnly(ctx)))),
  filter: (subs, _a, ctx) => {
    const shown = cutSubmodules(
      subs.map((s) => ({ path: s.path, recorded: s.recorded, checked_out: s.checkedOut })),
      ctx.scope,
    );
    return { kind: 'ok', value: { submodules: shown.map((s) => ({ ...s })), total: shown.length } };
  },
  render,
  notFound: () => notCheckedOut('submodule_status'),
});
