import * as z from 'zod/v4';
import { answerCap, contentCap } from '../../core/index.js';
import type { FileRead } from '../../upstream/types.js';
import { Path, rootTargetOf, withTarget } from '../schemas.js';
import { defineTool } from '../tool.js';
import { Source, WORKTREE_READ_BYTES, worktreeReads } from '../workspace.js';
import {
  FileOut,
  fileNote,
  fileOverCap,
  fileView,
  notFoundFile,
  serveOn,
  windowShape,
  windowView,
} from './get_file.js';
import { field } from '../render.js';
import type { LineWindowRequest } from '../../core/index.js';

/** Bound on one call, so a hostile list cannot turn one call into thousands of reads. */
export const MAX_FILES_PER_READ = 100;

const shape = {
  paths: z.array(Path).min(1).max(MAX_FILES_PER_READ).describe('Files to read.'),
  ...windowShape,
};
type Args = { paths: string[]; source?: 'head' | 'worktree' | undefined } & LineWindowRequest;

const Item = z.union([
  FileOut.extend({ ok: z.literal(true) }),
  z.object({
    ok: z.literal(false),
    path: z.string(),
    error: z.string(),
    // Set when the content was left out for size, never cut: `file` = this file alone exceeds the answer cap,
    // `answer` = earlier files filled the answer (read this one in another call).
    over_cap: z.enum(['file', 'answer']).optional(),
  }),
]);
const Output = z.object({ files: z.array(Item), found: z.number(), missing: z.number() });
type Output = z.infer<typeof Output>;

/** `head -v`-like: a summary line, then each file under a `==> path <==` line (its error on that line instead). */
function render(o: Output): string {
  const parts = [`${o.found} found, ${o.missing} missing\n`];
  for (const f of o.files) {
    if (!f.ok) {
      parts.push(`==> ${field(f.path)} <== ${f.error}\n`);
      continue;
    }
    const note = fileNote(f);
    parts.push(
      `==> ${field(f.path)} <==${note === '' ? '' : ` ${note}`}\n`,
      f.content.endsWith('\n') || f.content === '' ? f.content : `${f.content}\n`,
    );
  }
  return parts.join('');
}

const leftOut = (path: string, cap: number) =>
  ({
    ok: false,
    path,
    error: `"${path}" was left out: this answer reached its ${cap}-byte cap. Read it in another call.`,
    over_cap: 'answer',
  }) as const;

export const getFiles = defineTool<Args, readonly FileRead[], Output>({
  name: 'get_files',
  access: 'read',
  surfaces: ['agent', 'root'],
  pathMode: 'each',
  description:
    'Read several files of the bound branch: one result per path. The line window applies to each text file.',
  annotations: {
    title: 'Read files',
    readOnlyHint: true,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  },
  agentInput: z.strictObject(shape),
  rootInput: withTarget({ ...shape, source: Source }),
  worktreeInput: z.strictObject({ ...shape, source: Source }),
  output: Output,
  paths: (a) => a.paths.map((path) => ({ path, role: 'file' as const })),
  rootTarget: rootTargetOf,
  // Hidden paths are never sent upstream: they are answered as missing below, without a request that could time differently.
  run: (a, ctx) => {
    const wanted = [...new Set(a.paths.filter((p) => !ctx.hidden.has(p)))];
    if (wanted.length === 0) return Promise.resolve({ ok: true, value: [] });
    // A file over the answer cap can never be served, so the upstream need not download it (GitHub knows sizes first).
    const cap = contentCap(ctx.binding);
    if (a.source === 'worktree') return worktreeReads(ctx, wanted, Number.isFinite(cap) ? cap : WORKTREE_READ_BYTES);
    return ctx.upstream.readFiles(
      ctx.target.repo,
      ctx.target.ref,
      wanted,
      Number.isFinite(cap) ? { maxBytes: cap } : {},
    );
  },
  filter: (reads, a, ctx) => {
    const byPath = new Map(reads.map((r) => [r.path, r]));
    const files: Output['files'] = [];
    // Content bytes served so far: only readable files ever count, so the cut never depends on hidden ones.
    const cap = contentCap(ctx.binding);
    let used = 0;
    // Repeats are answered once: a list of the same large path must not multiply the answer.
    for (const path of new Set(a.paths)) {
      const r = byPath.get(path);
      if (r && r.ok && ctx.scope.canRead(path)) {
        const served = serveOn(r, ctx);
        if (served.kind === 'refused') {
          files.push({ ok: false, path, error: served.message });
          continue;
        }
        // A link whose target is not readable (`missing`) falls through to the missing answer below, byte for byte,
        // and takes nothing from the answer cap.
        if (served.kind === 'text' || served.kind === 'base64') {
          const w = windowView(fileView(r, served), a);
          if (!w.ok) {
            files.push({ ok: false, path, error: w.message });
            continue;
          }
          const view = w.value;
          const bytes = Buffer.byteLength(view.content);
          if (bytes > cap) {
            files.push({ ok: false, path, error: fileOverCap(path, r.size, answerCap(ctx.binding)), over_cap: 'file' });
            continue;
          }
          if (used + bytes > cap) {
            files.push(leftOut(path, answerCap(ctx.binding)));
            continue;
          }
          used += bytes;
          files.push({ ok: true, ...view });
          continue;
        }
      }
      // Refused unread by the upstream for size: alone over the cap, or no room left after the files before it.
      if (r && !r.ok && r.error.code === 'too_large' && r.size !== undefined && ctx.scope.canRead(path)) {
        files.push(
          r.size > cap
            ? { ok: false, path, error: fileOverCap(path, r.size, answerCap(ctx.binding)), over_cap: 'file' }
            : leftOut(path, answerCap(ctx.binding)),
        );
        continue;
      }
      // Only visible paths reach the upstream, so a real failure here can be told as it is.
      if (r && !r.ok && r.error.code !== 'not_found' && ctx.scope.canRead(path)) {
        files.push({ ok: false, path, error: r.error.message });
        continue;
      }
      files.push({ ok: false, path, error: notFoundFile(path) });
    }
    const found = files.filter((f) => f.ok).length;
    return { kind: 'ok', value: { files, found, missing: files.length - found } };
  },
  // Its answer on an agent binding is fixed by the head commit, the arguments and the binding (answer cache).
  pinned: true,
  notFound: () => 'Not found.',
  render,
});
