import * as z from 'zod/v4';
import { cutPreflight } from '../../core/index.js';
import type { MergePreflight } from '../../workspace/types.js';
import { rootTargetOf } from '../schemas.js';
import { field } from '../render.js';
import { defineTool } from '../tool.js';
import { onTree, readOnly, up, WsBranch, wsRootFields } from '../workspace.js';

const shape = { with: WsBranch.describe('Branch to merge into the bound branch (one this connection may name).') };
type Args = { with: string };

const Output = z.object({
  with: z.string(),
  status: z.enum(['clean', 'conflicts', 'unrelated']).describe('"unrelated": the branches share no history.'),
  conflicts: z.array(z.string()).describe('Conflicted files you can read.'),
  omitted_count: z.number().describe('Conflicted files outside what you can read (never named).'),
  working_tree_touched: z.literal(false),
});
type Output = z.infer<typeof Output>;

function render(o: Output): string {
  return [
    `merge ${field(o.with)}: ${o.status}, omitted ${o.omitted_count}`,
    ...o.conflicts.map((p) => `conflict ${field(p)}`),
  ].join('\n');
}

export const conflictPreflight = defineTool<Args, MergePreflight, Output>({
  name: 'conflict_preflight',
  access: 'read',
  surfaces: ['agent', 'root'],
  requires: 'worktree',
  pathMode: 'all',
  description: 'Would merging branch `with` into the bound branch conflict? Touches nothing.',
  annotations: readOnly('Merge conflict preflight'),
  agentInput: z.strictObject(shape),
  rootInput: z.strictObject({ ...shape, ...wsRootFields }),
  output: Output,
  paths: () => [],
  rootTarget: rootTargetOf,
  run: (a, ctx) => {
    // Only allowlisted branches exist for an agent: any other name is answered as a branch that does not exist,
    // before git is asked anything about it.
    if (ctx.binding.surface === 'agent' && !ctx.binding.branches.includes(a.with)) {
      return Promise.resolve({ ok: false, error: { code: 'not_found', message: 'no such branch' } });
    }
    return onTree(ctx, async (t) => up(await t.mergePreflight(a.with)));
  },
  filter: (p, a, ctx) => {
    switch (p.kind) {
      case 'clean':
        return {
          kind: 'ok',
          value: { with: a.with, status: 'clean', conflicts: [], omitted_count: 0, working_tree_touched: false },
        };
      case 'no_merge_base':
        return {
          kind: 'ok',
          value: { with: a.with, status: 'unrelated', conflicts: [], omitted_count: 0, working_tree_touched: false },
        };
      case 'conflicted': {
        const cut = cutPreflight(p.paths, ctx.scope);
        return {
          kind: 'ok',
          value: {
            with: a.with,
            status: cut.status,
            conflicts: [...cut.conflicts],
            omitted_count: cut.omitted_count,
            working_tree_touched: false,
          },
        };
      }
      default: {
        const never: never = p;
        throw new Error(`unknown preflight ${JSON.stringify(never)}`);
      }
    }
  },
  render,
  notFound: (a) => `Not found: branch "${a.with}" does not exist here, or the bound branch has no working tree.`,
});
