import * as z from 'zod/v4';
import { answerCap, serveRead, type ServedRead } from '../../core/index.js';
import type { FileRead } from '../../upstream/types.js';
import { Path, rootTargetOf, withTarget } from '../schemas.js';
import { defineTool, type ToolContext } from '../tool.js';

const shape = { path: Path.describe('File to read, relative to the repository root.') };
type Args = { path: string };

export const FileOut = z.object({
  path: z.string(),
  sha: z.string(),
  size: z.number(),
  encoding: z.enum(['utf-8', 'base64']),
  content: z.string(),
  symlink: z.boolean().optional(),
});
type Output = z.infer<typeof FileOut>;

/** What one successful upstream read becomes on this binding (the core decides text, base64, refusal or missing). */
export function serveOn(f: Extract<FileRead, { ok: true }>, ctx: ToolContext): ServedRead {
  const agent = ctx.binding.surface === 'agent';
  return serveRead(f, { scope: ctx.scope, allowBinary: !agent || ctx.binding.allowBinary, judgeLinks: agent });
}

/** Served content as the tool returns it; base64 with the platform encoder (native, see ServedRead). */
export function fileView(f: Extract<FileRead, { ok: true }>, s: Extract<ServedRead, { kind: 'text' | 'base64' }>): Output {
  const body =
    s.kind === 'text'
      ? { encoding: 'utf-8' as const, content: s.text }
      : { encoding: 'base64' as const, content: Buffer.from(s.bytes.buffer, s.bytes.byteOffset, s.bytes.byteLength).toString('base64') };
  const out: Output = { path: f.path, sha: f.sha, size: f.size, ...body };
  if (s.symlink) out.symlink = true;
  return out;
}

/** The refusal for a readable file bigger than the perimeter's answer cap (its size is visible anyway: get_tree lists it). */
export const fileOverCap = (path: string, size: number, cap: number): string =>
  `"${path}" is ${size} bytes, over this perimeter's ${cap}-byte answer cap; it is not served whole. Ask the operator to raise max_answer_bytes if you need it.`;

export const notFoundFile = (path: string): string =>
  `Not found: file "${path}" does not exist on this branch. Use get_tree to see which files exist.`;

export const getFile = defineTool<Args, readonly FileRead[], Output>({
  name: 'get_file',
  access: 'read',
  agentSurface: true,
  pathMode: 'all',
  description:
    'Read one file of the bound branch. Text comes back as UTF-8; binary content as base64. A symlink is returned as its target text, and only when that target is readable.',
  annotations: { title: 'Read a file', readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  agentInput: z.strictObject(shape),
  rootInput: withTarget(shape),
  output: FileOut,
  paths: (a) => [{ path: a.path, role: 'file' }],
  rootTarget: rootTargetOf,
  run: (a, ctx) => {
    const cap = answerCap(ctx.binding);
    return ctx.upstream.readFiles(ctx.target.repo, ctx.target.ref, [a.path], Number.isFinite(cap) ? { maxBytes: cap } : {});
  },
  filter: (reads, a, ctx) => {
    const f = reads[0];
    if (!f || !ctx.scope.canRead(a.path) || f.path !== a.path) return { kind: 'not_found' };
    const cap = answerCap(ctx.binding);
    if (!f.ok) {
      if (f.error.code === 'too_large' && f.size !== undefined) return { kind: 'refused', message: fileOverCap(a.path, f.size, cap) };
      return f.error.code === 'not_found' ? { kind: 'not_found' } : { kind: 'error', error: f.error };
    }
    const served = serveOn(f, ctx);
    switch (served.kind) {
      case 'text':
      case 'base64': {
        const value = fileView(f, served);
        if (Buffer.byteLength(value.content) > cap) return { kind: 'refused', message: fileOverCap(a.path, f.size, cap) };
        return { kind: 'ok', value };
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
  },
  notFound: (a) => notFoundFile(a.path),
});
