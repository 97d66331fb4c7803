import * as z from 'zod/v4';
import { answerCap } from '../../core/index.js';
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

/** The agent view of a successful read. */
export function fileView(f: Extract<FileRead, { ok: true }>): Output {
  const out: Output = { path: f.path, sha: f.sha, size: f.size, encoding: f.encoding, content: f.content };
  if (f.symlink) out.symlink = true;
  return out;
}

/** A binary file on a perimeter that does not serve binary content gets this instead of its bytes. */
export function binaryRefusal(f: FileRead, binding: ToolContext['binding']): string | undefined {
  if (!f.ok || f.encoding !== 'base64' || f.symlink || binding.surface === 'root' || binding.allowBinary) return undefined;
  return `"${f.path}" is a binary file (${f.size} bytes); this perimeter serves text only. Ask the operator to allow binary content if you need it.`;
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
  description: 'Read one file of the bound branch. Text comes back as UTF-8; binary content as base64.',
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
    const refusal = binaryRefusal(f, ctx.binding);
    if (refusal !== undefined) return { kind: 'refused', message: refusal };
    const cap = answerCap(ctx.binding);
    if (!f.ok && f.error.code === 'too_large' && f.size !== undefined) return { kind: 'refused', message: fileOverCap(a.path, f.size, cap) };
    if (f.ok && Buffer.byteLength(f.content) > cap) return { kind: 'refused', message: fileOverCap(a.path, f.size, cap) };
    if (f.ok) return { kind: 'ok', value: fileView(f) };
    return f.error.code === 'not_found' ? { kind: 'not_found' } : { kind: 'error', error: f.error };
  },
  notFound: (a) => notFoundFile(a.path),
});
