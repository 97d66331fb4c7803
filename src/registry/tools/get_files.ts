import * as z from 'zod/v4';
import type { FileRead } from '../../upstream/types.js';
import { Path, rootTargetOf, withTarget } from '../schemas.js';
import { defineTool } from '../tool.js';
import { binaryRefusal, FileOut, fileView, notFoundFile } from './get_file.js';

/** Bound on one call, so a hostile list cannot turn one call into thousands of reads. */
export const MAX_FILES_PER_READ = 100;

const shape = {
  paths: z.array(Path).min(1).max(MAX_FILES_PER_READ).describe(`Files to read (at most ${MAX_FILES_PER_READ}).`),
};
type Args = { paths: string[] };

const Item = z.union([
  FileOut.extend({ ok: z.literal(true) }),
  z.object({ ok: z.literal(false), path: z.string(), error: z.string() }),
]);
const Output = z.object({ files: z.array(Item), found: z.number(), missing: z.number() });
type Output = z.infer<typeof Output>;

export const getFiles = defineTool<Args, readonly FileRead[], Output>({
  name: 'get_files',
  access: 'read',
  agentSurface: true,
  pathMode: 'each',
  description: 'Read several files of the bound branch in one call. Each path gets its own result; a missing file does not fail the others.',
  annotations: { title: 'Read files', readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  agentInput: z.strictObject(shape),
  rootInput: withTarget(shape),
  output: Output,
  paths: (a) => a.paths.map((path) => ({ path, role: 'file' as const })),
  rootTarget: rootTargetOf,
  // Hidden paths are never sent upstream: they are answered as missing below, without a request that could time differently.
  run: (a, ctx) => {
    const wanted = [...new Set(a.paths.filter((p) => !ctx.hidden.has(p)))];
    if (wanted.length === 0) return Promise.resolve({ ok: true, value: [] });
    return ctx.upstream.readFiles(ctx.target.repo, ctx.target.ref, wanted);
  },
  filter: (reads, a, ctx) => {
    const byPath = new Map(reads.map((r) => [r.path, r]));
    const files: Output['files'] = [];
    for (const path of a.paths) {
      const r = byPath.get(path);
      if (r && r.ok && ctx.scope.canRead(path)) {
        const refusal = binaryRefusal(r, ctx.binding);
        files.push(refusal === undefined ? { ok: true, ...fileView(r) } : { ok: false, path, error: refusal });
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
  notFound: () => 'Not found.',
});
