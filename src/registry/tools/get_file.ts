import * as z from 'zod/v4';
import {
  answerCap,
  contentCap,
  lineWindow,
  serveRead,
  wantsWindow,
  type LineWindowRequest,
  type ServedRead,
} from '../../core/index.js';
import type { FileRead } from '../../upstream/types.js';
import { field } from '../render.js';
import { Path, rootTargetOf, withTarget } from '../schemas.js';
import { defineTool, type ToolContext, type ToolOutcome } from '../tool.js';
import { Source, WORKTREE_READ_BYTES, worktreeReads } from '../workspace.js';

/** Largest line number accepted; a bound so a schema can state it, far above any file served whole. */
const MAX_LINE = 100_000_000;

/** The optional line-window arguments shared by get_file and get_files. */
export const windowShape = {
  start_line: z.number().int().min(1).max(MAX_LINE).optional().describe('First line (1-based).'),
  end_line: z.number().int().min(1).max(MAX_LINE).optional().describe('Last line (inclusive).'),
};

const shape = { path: Path.describe('File to read.'), ...windowShape };
type Args = { path: string; source?: 'head' | 'worktree' | undefined } & LineWindowRequest;

export const FileOut = z.object({
  path: z.string(),
  sha: z.string(),
  size: z.number(),
  encoding: z.enum(['utf-8', 'base64']),
  content: z.string(),
  symlink: z.boolean().optional(),
  total_lines: z.number().optional().describe('With a line window: lines in the whole file.'),
  start_line: z.number().optional().describe('With a line window: the first line returned.'),
  end_line: z.number().optional().describe('With a line window: the last line returned (start_line - 1 when none).'),
});
export type FileOutput = z.infer<typeof FileOut>;
type Output = FileOutput;

/** What one successful upstream read becomes on this binding (the core decides text, base64, refusal or missing). */
export function serveOn(f: Extract<FileRead, { ok: true }>, ctx: ToolContext): ServedRead {
  const agent = ctx.binding.surface === 'agent';
  return serveRead(f, { scope: ctx.scope, allowBinary: !agent || ctx.binding.allowBinary, judgeLinks: agent });
}

/** Served content as the tool returns it; base64 with the platform encoder (native, see ServedRead). */
export function fileView(
  f: Extract<FileRead, { ok: true }>,
  s: Extract<ServedRead, { kind: 'text' | 'base64' }>,
): Output {
  const body =
    s.kind === 'text'
      ? { encoding: 'utf-8' as const, content: s.text }
      : {
          encoding: 'base64' as const,
          content: Buffer.from(s.bytes.buffer, s.bytes.byteOffset, s.bytes.byteLength).toString('base64'),
        };
  const out: Output = { path: f.path, sha: f.sha, size: f.size, ...body };
  if (s.symlink) out.symlink = true;
  return out;
}

/** The refusal for a readable file bigger than the perimeter's answer cap (its size is visible anyway: get_tree lists it). */
export const fileOverCap = (path: string, size: number, cap: number): string =>
  `"${path}" is ${size} bytes, over this perimeter's ${cap}-byte answer cap once sent as both text and structured content; it is not served whole. Read it in line windows (start_line/end_line), or ask the operator to raise max_answer_bytes.`;

/**
 * Largest file a line window is cut from: a window of a file over the answer cap is served when the window fits, so
 * the adapter may read up to this much for a windowed call (and only the answer cap for a whole read).
 */
export const MAX_WINDOW_SOURCE_BYTES = 16 * 1024 * 1024;

/** What the adapter may read for one file of this call. */
export const readCap = (cap: number, req: LineWindowRequest): number =>
  wantsWindow(req) ? Math.max(cap, MAX_WINDOW_SOURCE_BYTES) : cap;

/**
 * Cuts a served file to the requested line window. Text only: a binary (base64) file or a symlink is refused with
 * a message, since its "lines" would be a split of encoded bytes. Without window arguments the view is unchanged.
 */
export function windowView(
  view: Output,
  req: LineWindowRequest,
): { ok: true; value: Output } | { ok: false; message: string } {
  if (!wantsWindow(req)) return { ok: true, value: view };
  if (view.encoding !== 'utf-8' || view.symlink) {
    return {
      ok: false,
      message: `"${view.path}" is not a text file; start_line and end_line apply to text files only. Read it without them.`,
    };
  }
  const w = lineWindow(view.content, req);
  if (!w.ok) return { ok: false, message: `"${view.path}": ${w.message}` };
  return {
    ok: true,
    value: {
      ...view,
      content: w.value.content,
      total_lines: w.value.total_lines,
      start_line: w.value.start_line,
      end_line: w.value.end_line,
    },
  };
}

/** What a file's text needs beyond its content: a window, base64 or a link says so; a whole text file needs nothing. */
export function fileNote(v: Output): string {
  if (v.symlink) return 'symlink';
  if (v.encoding === 'base64') return `base64, ${v.size} bytes`;
  if (v.total_lines !== undefined) return `lines ${v.start_line ?? 1}-${v.end_line ?? 0} of ${v.total_lines}`;
  return '';
}

/**
 * A file as the model reads it: a whole text file is its content byte for byte (what `git show` prints); a window,
 * a link or base64 content gets one header line saying what follows.
 */
export function renderFile(v: Output): string {
  const note = fileNote(v);
  return note === '' ? v.content : `${field(v.path)}: ${note}\n${v.content}`;
}

export const notFoundFile = (path: string): string =>
  `Not found: file "${path}" does not exist on this branch. Use get_tree to see which files exist.`;

/**
 * get_file's cut of one read: missing, refused (binary, a link to a hidden target, a window on non-text, over the
 * cap) or served. `overCap: 'keep'` hands a readable file over the answer cap back whole for the caller to cut
 * (the `fetch` alias, whose contract has no windows); every other refusal is the same text for the same path.
 */
export function fileOutcome(
  reads: readonly FileRead[],
  a: { path: string } & LineWindowRequest,
  ctx: ToolContext,
  overCap: 'refuse' | 'keep',
): ToolOutcome<Output> {
  const f = reads[0];
  if (!f || !ctx.scope.canRead(a.path) || f.path !== a.path) return { kind: 'not_found' };
  const cap = contentCap(ctx.binding);
  if (!f.ok) {
    if (f.error.code === 'too_large' && f.size !== undefined)
      return { kind: 'refused', message: fileOverCap(a.path, f.size, answerCap(ctx.binding)) };
    return f.error.code === 'not_found' ? { kind: 'not_found' } : { kind: 'error', error: f.error };
  }
  const served = serveOn(f, ctx);
  switch (served.kind) {
    case 'text':
    case 'base64': {
      const w = windowView(fileView(f, served), a);
      if (!w.ok) return { kind: 'refused', message: w.message };
      // The cap applies to what is served: a window of a long file fits where the whole file would not.
      if (overCap === 'refuse' && Buffer.byteLength(w.value.content) > cap)
        return { kind: 'refused', message: fileOverCap(a.path, f.size, answerCap(ctx.binding)) };
      return { kind: 'ok', value: w.value };
    }
    case 'refused':
      return { kind: 'refused', message: served.message };
    case 'missing':
      return { kind: 'not_found' };
    default: {
      const never: never = served;
      throw new Error(`unknown served read ${JSON.stringify(never)}`);
    }
  }
}

export const getFile = defineTool<Args, readonly FileRead[], Output>({
  name: 'get_file',
  access: 'read',
  surfaces: ['agent', 'root'],
  pathMode: 'all',
  description:
    'Read a file of the bound branch (UTF-8, base64 if binary, a symlink as its target). `start_line`/`end_line`: whole lines.',
  annotations: {
    title: 'Read a file',
    readOnlyHint: true,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  },
  agentInput: z.strictObject(shape),
  rootInput: withTarget({ ...shape, source: Source }),
  worktreeInput: z.strictObject({ ...shape, source: Source }),
  output: FileOut,
  paths: (a) => [{ path: a.path, role: 'file' }],
  rootTarget: rootTargetOf,
  run: (a, ctx) => {
    const cap = readCap(contentCap(ctx.binding), a);
    if (a.source === 'worktree') return worktreeReads(ctx, [a.path], Number.isFinite(cap) ? cap : WORKTREE_READ_BYTES);
    return ctx.upstream.readFiles(
      ctx.target.repo,
      ctx.target.ref,
      [a.path],
      Number.isFinite(cap) ? { maxBytes: cap } : {},
    );
  },
  filter: (reads, a, ctx) => fileOutcome(reads, a, ctx, 'refuse'),
  // Its answer on an agent binding is fixed by the head commit, the arguments and the binding (answer cache).
  pinned: true,
  notFound: (a) => notFoundFile(a.path),
  render: renderFile,
});
