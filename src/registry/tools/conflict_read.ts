import * as z from 'zod/v4';
import {
  answerCap,
  decodeUtf8,
  markerRegions,
  sideView,
  workingServable,
  type RawSide,
  type SideView,
} from '../../core/index.js';
import type { ConflictSides, ConflictStage, Operation } from '../../workspace/types.js';
import { Path, rootTargetOf } from '../schemas.js';
import { field } from '../render.js';
import { defineTool, type ToolContext } from '../tool.js';
import { onTree, readOnly, up, wsRootFields } from '../workspace.js';

/** Bytes per side by default and at most (each side is also bounded by a quarter of the answer cap). */
export const SIDE_BYTES = 16 * 1024;
export const MAX_SIDE_BYTES = 1024 * 1024;

const shape = {
  path: Path.describe('A conflicted file, relative to the repository root.'),
  max_bytes_per_side: z
    .number()
    .int()
    .min(1)
    .max(MAX_SIDE_BYTES)
    .optional()
    .describe(`Content bytes per side (default ${SIDE_BYTES}).`),
};
type Args = { path: string; max_bytes_per_side?: number | undefined };

const Side = z.object({
  present: z.boolean(),
  sha: z.string().optional(),
  size: z.number().optional(),
  binary: z.boolean().optional(),
  truncated: z.boolean().optional(),
  content: z.string().optional(),
});
const Output = z.object({
  path: z.string(),
  operation: z.enum(['merge', 'rebase', 'cherry_pick', 'revert', 'bisect', 'none']),
  base: Side,
  ours: Side,
  theirs: Side,
  working: Side.describe('The file on disk, with its conflict markers.'),
  regions: z
    .array(z.object({ start_line: z.number(), separator_line: z.number(), end_line: z.number() }))
    .describe('Conflict marker regions in the working file (1-based lines).'),
});
type Output = z.infer<typeof Output>;

interface Raw {
  readonly sides: ConflictSides;
  readonly operation: Operation;
}

const side = (s: ConflictStage): RawSide | undefined =>
  s.present
    ? { sha: s.oid, mode: s.mode, size: s.size, bytes: s.bytes, truncated: s.truncated, atPath: s.atPath }
    : undefined;

const sideOut = (v: SideView): z.infer<typeof Side> => ({ ...v });

function limit(a: Args, ctx: ToolContext): number {
  return Math.max(1, Math.min(a.max_bytes_per_side ?? SIDE_BYTES, Math.floor(answerCap(ctx.binding) / 8)));
}

function sideText(name: string, s: z.infer<typeof Side>): string {
  if (!s.present) return `${name}: absent`;
  if (s.binary) return `${name}: binary ${s.size ?? 0} bytes`;
  return `${name}: ${s.size ?? 0} bytes${s.truncated ? ' (truncated)' : ''}\n${s.content ?? ''}`;
}

function render(o: Output): string {
  const regions = o.regions.map((r) => `${r.start_line}-${r.separator_line}-${r.end_line}`).join(' ');
  return [
    `${field(o.path)} (${o.operation}) regions ${regions || 'none'}`,
    sideText('base', o.base),
    sideText('ours', o.ours),
    sideText('theirs', o.theirs),
    sideText('working', o.working),
  ].join('\n');
}

export const conflictRead = defineTool<Args, Raw, Output>({
  name: 'conflict_read',
  access: 'read',
  surfaces: ['agent', 'root'],
  requires: 'worktree',
  pathMode: 'all',
  description:
    'During a merge or rebase: base, ours, theirs and the file on disk of one conflicted file, with marker lines.',
  annotations: readOnly('Read a conflicted file'),
  agentInput: z.strictObject(shape),
  rootInput: z.strictObject({ ...shape, ...wsRootFields }),
  output: Output,
  paths: (a) => [{ path: a.path, role: 'file' }],
  rootTarget: rootTargetOf,
  run: (a, ctx) =>
    onTree(ctx, async (t) => {
      const sides = up(await t.conflictSides(a.path, limit(a, ctx)));
      if (!sides.ok) return sides;
      const op = up(await t.operation());
      return op.ok ? { ok: true, value: { sides: sides.value, operation: op.value } } : op;
    }),
  filter: (raw, a, ctx) => {
    const { sides } = raw;
    if (sides.path !== a.path) return { kind: 'not_found' };
    const max = limit(a, ctx);
    const w = sides.worktree;
    const stages = [side(sides.base), side(sides.ours), side(sides.theirs)];
    // The working file is judged where it resolves: a conflicted path turned into a link to a hidden file is absent.
    // It is also absent when git merged a stage into it that it paired from another path (its hunks carry that side).
    let working: z.infer<typeof Side> = { present: false };
    let regions: Output['regions'] = [];
    if (w.kind === 'file' && ctx.scope.canRead(w.resolvedPath) && workingServable(stages)) {
      // Judged as a plain file: the adapter already followed any link, inside the tree only.
      const { sha: _unused, ...view } = sideView(
        a.path,
        { sha: '', mode: '100644', size: w.size, bytes: w.bytes, truncated: w.bytes.length < w.size, atPath: true },
        ctx.scope,
        max,
      ) as SideView & { sha?: string };
      working = view;
      const text = decodeUtf8(w.bytes);
      regions = text === undefined ? [] : markerRegions(text);
    }
    return {
      kind: 'ok',
      value: {
        path: a.path,
        operation: raw.operation,
        base: sideOut(sideView(a.path, stages[0], ctx.scope, max)),
        ours: sideOut(sideView(a.path, stages[1], ctx.scope, max)),
        theirs: sideOut(sideView(a.path, stages[2], ctx.scope, max)),
        working,
        regions,
      },
    };
  },
  render,
  notFound: (a) =>
    `Not found: "${a.path}" is not a conflicted file in the working tree. Use workspace_status to see which files are conflicted.`,
});
