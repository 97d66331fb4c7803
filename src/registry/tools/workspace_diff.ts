import * as z from 'zod/v4';
import {
  answerCap,
  cutDiff,
  filterCommit,
  lonelySides,
  pageDiff,
  type DiffFileView,
  type RawDiffFile,
  type UnreadPath,
} from '../../core/index.js';
import type { UpResult } from '../../upstream/types.js';
import type { DiffRequest, WorkTree } from '../../workspace/types.js';
import { Path, rootTargetOf } from '../schemas.js';
import { field } from '../render.js';
import { defineTool, type ToolContext } from '../tool.js';
import { gitPrefixes, notCheckedOut, onTree, rawDiff, readOnly, up, wsRootFields } from '../workspace.js';

/** Patch text one page carries at most (whole files: a single larger file still comes alone). */
export const DIFF_PAGE_BYTES = 256 * 1024;
const SHA = /^[0-9a-f]{40}([0-9a-f]{24})?$/;

const shape = {
  against: z
    .union([z.enum(['index', 'head']), z.string().regex(SHA, 'a full commit id (40 or 64 lowercase hex digits)')])
    .optional()
    .describe(
      'Left side: "index" (default without staged), "head" (default with staged), or a readable commit of the bound branch.',
    ),
  staged: z
    .boolean()
    .optional()
    .describe('Compare the index (what is staged) instead of the working tree. Default: false.'),
  path: Path.optional().describe('Only files at or below this path.'),
  offset: z
    .number()
    .int()
    .min(0)
    .max(1_000_000)
    .optional()
    .describe('Page start: the next_offset of the previous page.'),
};
type Args = {
  against?: string | undefined;
  staged?: boolean | undefined;
  path?: string | undefined;
  offset?: number | undefined;
};

const FileOut = z.object({
  path: z.string(),
  status: z.string(),
  previous_path: z.string().optional(),
  additions: z.number(),
  deletions: z.number(),
  binary: z.boolean(),
  patch: z
    .string()
    .optional()
    .describe('Hunks only; absent for binary files and for files shown without their pairing.'),
});
const Output = z.object({
  against: z.string(),
  staged: z.boolean(),
  files: z.array(FileOut),
  omitted_count: z.number().describe('Changed files outside what you can read (never named).'),
  totals: z
    .object({ files: z.number(), additions: z.number(), deletions: z.number() })
    .describe('Over every file you can see, not just this page.'),
  next_offset: z.number().optional().describe('Present when more files follow: pass it as offset.'),
  truncated: z.boolean().describe('True when git printed more than the diff cap: the files are then a prefix.'),
});
type Output = z.infer<typeof Output>;

interface Raw {
  readonly files: readonly RawDiffFile[];
  readonly truncated: boolean;
  readonly whole: ReadonlyMap<string, Uint8Array>;
  readonly unread: readonly UnreadPath[];
}

function request(a: Args, ctx: ToolContext): DiffRequest | string {
  const staged = a.staged ?? false;
  const against = a.against ?? (staged ? 'head' : 'index');
  if (against === 'index' && staged)
    return 'Invalid argument: staged compares the index with a commit; use against "head" or a commit id.';
  const paths = a.path !== undefined && a.path !== '' ? [a.path] : gitPrefixes(ctx);
  const left = against === 'index' || against === 'head' ? against : { commit: against };
  // An agent's diff reads patches of readable paths only, and git pairs renames only among them: hidden patches never
  // reach a cap or a parser, and whether git would have paired a visible file with a hidden one never shows.
  const read = ctx.binding.surface === 'agent' ? { read: (p: string) => ctx.scope.canRead(p) } : {};
  // '' (the whole tree) is no pathspec at all; an empty list means nothing is readable (answered empty, git not run).
  return paths.includes('') ? { against: left, staged, ...read } : { against: left, staged, paths, ...read };
}

/** A commit an agent names must be one it can see: reachable from the bound branch and touching a readable file. */
async function commitVisible(ctx: ToolContext, sha: string): Promise<boolean> {
  if (ctx.binding.surface !== 'agent') return true;
  const c = await ctx.upstream.getCommit(ctx.target.repo, sha, ctx.target.ref);
  return c.ok && filterCommit(c.value, ctx.scope).kind === 'visible';
}

/**
 * Bytes of the sides the core shows alone (a rename across the boundary): the working-tree file of an added side,
 * the committed blob of a deleted one. The index has no reader here, so a staged side comes without bytes (shown
 * without counts or patch rather than with counts that measure the hidden file).
 */
async function wholeSides(
  ctx: ToolContext,
  t: WorkTree,
  files: readonly RawDiffFile[],
  req: DiffRequest,
): Promise<Map<string, Uint8Array>> {
  const out = new Map<string, Uint8Array>();
  const cap = Math.min(answerCap(ctx.binding), 1024 * 1024);
  for (const key of lonelySides(files, ctx.scope)) {
    const [side, path] = [key.slice(0, key.indexOf(':')), key.slice(key.indexOf(':') + 1)];
    if (side === 'added' && !req.staged) {
      const r = await t.readFile(path, cap);
      if (r.ok && r.value.kind === 'file' && r.value.resolvedPath === path) out.set(key, r.value.bytes);
    } else if (side === 'deleted' && req.against !== 'index') {
      const ref = req.against === 'head' ? ctx.target.ref : req.against.commit;
      const r = await ctx.upstream.readFiles(ctx.target.repo, ref, [path], { maxBytes: cap });
      const f = r.ok ? r.value[0] : undefined;
      if (f?.ok && !f.symlink) out.set(key, f.bytes);
    }
  }
  return out;
}

function render(o: Output): string {
  const t = o.totals;
  const lines = [
    `${o.staged ? 'index' : 'working tree'} vs ${o.against}: ${t.files} files +${t.additions} -${t.deletions}, omitted ${o.omitted_count}${o.truncated ? ' (truncated)' : ''}`,
  ];
  for (const f of o.files) {
    lines.push(
      `${f.status} ${field(f.path)}${f.previous_path !== undefined ? ` from ${field(f.previous_path)}` : ''} +${f.additions} -${f.deletions}${f.binary ? ' binary' : ''}`,
    );
    if (f.patch !== undefined) lines.push(f.patch);
  }
  if (o.next_offset !== undefined) lines.push(`more: offset ${o.next_offset}`);
  return lines.join('\n');
}

export const workspaceDiff = defineTool<Args, Raw, Output>({
  name: 'workspace_diff',
  access: 'read',
  surfaces: ['agent', 'root'],
  requires: 'worktree',
  // A hidden path narrows to nothing, exactly like a readable path with no changes: an empty diff, never "not found".
  pathMode: 'each',
  description:
    'Per-file patches of the working tree vs the index (default), or the index (`staged`) vs HEAD, or vs a commit. Paged: pass `next_offset` as `offset`.',
  annotations: readOnly('Working-tree diff'),
  agentInput: z.strictObject(shape),
  rootInput: z.strictObject({ ...shape, ...wsRootFields }),
  output: Output,
  paths: (a) => (a.path === undefined ? [] : [{ path: a.path, role: 'dir' }]),
  rootTarget: rootTargetOf,
  guard: (a, ctx) => {
    const r = request(a, ctx);
    return typeof r === 'string' ? r : undefined;
  },
  run: (a, ctx) =>
    onTree(ctx, async (t): Promise<UpResult<Raw>> => {
      const req = request(a, ctx);
      const empty: Raw = { files: [], truncated: false, whole: new Map(), unread: [] };
      if (typeof req === 'string') return { ok: true, value: empty };
      // The commit first: a hidden path must answer exactly as a readable path with no changes does, commit and all.
      if (typeof req.against === 'object' && !(await commitVisible(ctx, req.against.commit))) {
        return { ok: false, error: { code: 'not_found', message: 'no such commit' } };
      }
      if ((a.path !== undefined && ctx.hidden.has(a.path)) || req.paths?.length === 0)
        return { ok: true, value: empty };
      const d = up(await t.diff(req));
      if (!d.ok) return d;
      const files = d.value.files.map(rawDiff);
      return {
        ok: true,
        value: {
          files,
          truncated: d.value.truncated,
          whole: await wholeSides(ctx, t, files, req),
          unread: d.value.unread,
        },
      };
    }),
  filter: (raw, a, ctx) => {
    const staged = a.staged ?? false;
    const cut = cutDiff(raw.files, ctx.scope, a.path ?? '', raw.whole, raw.unread);
    const budget = Math.min(DIFF_PAGE_BYTES, Math.floor(answerCap(ctx.binding) / 2));
    const page = pageDiff(cut.files, a.offset ?? 0, budget);
    const files = page.files.map((f: DiffFileView) => ({ ...f }));
    const value: Output = {
      against: a.against ?? (staged ? 'head' : 'index'),
      staged,
      files,
      omitted_count: cut.omitted_count,
      totals: { ...cut.totals },
      truncated: raw.truncated,
    };
    if (page.next_offset !== undefined) value.next_offset = page.next_offset;
    return { kind: 'ok', value };
  },
  render,
  notFound: (a) =>
    a.against !== undefined && a.against !== 'index' && a.against !== 'head'
      ? `Not found: commit "${a.against}" is not on this branch. Use list_commits to see which commits exist.`
      : notCheckedOut('workspace_diff'),
});
