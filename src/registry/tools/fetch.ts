// `fetch`: the fixed name ChatGPT's Deep Research and connectors call to read a `search` result. An alias of get_file,
// not a new path: the id opens (before the policy) to the path it was sealed for on this perimeter and branch, and
// that path takes get_file's gate and cut (`fileOutcome`): privacy zones, links, binary and every refusal are
// get_file's, byte for byte. The one difference is the contract's: no windows, so a file over the answer cap is
// served cut at a line, with `truncated` and the sizes, and get_file's line windows read the rest.
import * as z from 'zod/v4';
import { contentCap, jsonPrefix } from '../../core/index.js';
import type { FileRead } from '../../upstream/types.js';
import { pathOfId, resultUrl } from '../result-ids.js';
import { rootTargetOf, withTarget } from '../schemas.js';
import { defineTool, type ToolContext } from '../tool.js';
import { fileOutcome, MAX_WINDOW_SOURCE_BYTES, notFoundFile } from './get_file.js';

/** Longest id accepted: a sealed 4096-byte path with its place fits (base64 of ~4.3 KB is ~5.8 KB). */
export const MAX_ID_CHARS = 8192;
const shape = { id: z.string().min(1).max(MAX_ID_CHARS).describe('An id from search.') };
/** `path` is never sent by the agent (the schema is strict): `resolve` sets it from the sealed id. */
type Args = { id: string; path?: string | undefined };

const Metadata = z.object({
  path: z.string(),
  bytes: z.number().describe('Size of the file.'),
  encoding: z.enum(['utf-8', 'base64']),
  symlink: z.boolean().optional(),
  truncated: z.boolean().optional().describe('True when `text` is the start of the file only.'),
  total_bytes: z.number().optional(),
  served_bytes: z.number().optional(),
  next_line: z.number().optional().describe('When cut: read on from this line with get_file start_line.'),
});
const Output = z.object({ id: z.string(), title: z.string(), text: z.string(), url: z.string(), metadata: Metadata });
type Output = z.infer<typeof Output>;

interface Raw {
  readonly commit: string;
  readonly reads: readonly FileRead[];
}

/** The same words for a made-up, forged, edited or foreign id: none of them names a file here. */
const NO_SUCH_ID = 'Not found: this id names no file on this branch. Use search to find files.';

/** The answer for a served file, cut so the whole result (text block + structured JSON) fits the answer cap. */
// No commit id in the answer: the branch head may be a commit that touches only hidden files (an id get_commit
// answers "not found" for), so it would tell that hidden work happened. The audit still records the head read.
function answerOf(
  a: Args & { path: string },
  view: { size: number; encoding: 'utf-8' | 'base64'; content: string; symlink?: boolean | undefined },
  ctx: ToolContext,
): Output {
  const base: Omit<Output, 'text'> = {
    id: a.id,
    title: a.path,
    url: resultUrl(ctx.binding, a.path),
    metadata: {
      path: a.path,
      bytes: view.size,
      encoding: view.encoding,
      ...(view.symlink ? { symlink: true } : {}),
    },
  };
  const cap = contentCap(ctx.binding);
  const whole: Output = { ...base, text: view.content };
  if (!Number.isFinite(cap) || Buffer.byteLength(JSON.stringify(whole)) <= cap) return whole;
  const total = Buffer.byteLength(view.content);
  // Room for the text: the envelope is measured with the largest numbers it can carry (served ≤ total; lines ≤ total).
  const widest: Output = {
    ...base,
    text: '',
    metadata: { ...base.metadata, truncated: true, total_bytes: total, served_bytes: total, next_line: total + 1 },
  };
  const room = cap - Buffer.byteLength(JSON.stringify(widest)) + 2;
  const prefix = jsonPrefix(view.content, Math.max(2, room));
  // base64 is cut on a whole quantum, so what is served decodes.
  const text =
    view.encoding === 'base64' ? prefix.text.slice(0, prefix.text.length - (prefix.text.length % 4)) : prefix.text;
  const lines = prefix.lines;
  const cutMeta = { ...base.metadata, truncated: true, total_bytes: total, served_bytes: Buffer.byteLength(text) };
  return {
    ...base,
    text,
    metadata: view.encoding === 'utf-8' && !view.symlink ? { ...cutMeta, next_line: lines + 1 } : cutMeta,
  };
}

export const fetchAlias = defineTool<Args, Raw, Output>({
  name: 'fetch',
  aliasOf: 'get_file',
  access: 'read',
  surfaces: ['agent'],
  pathMode: 'all',
  description:
    'get_file for ChatGPT connectors: the file a search result `id` names, at the branch head (cut at the answer cap).',
  annotations: {
    title: 'Fetch (connector)',
    readOnlyHint: true,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  },
  agentInput: z.strictObject(shape),
  // Never listed on the operator surface (isExposed); declared for the table's uniformity.
  rootInput: withTarget(shape),
  output: Output,
  resolve: (a, binding, cursors) => {
    const path = pathOfId(binding, cursors, a.id);
    return path === undefined ? { id: a.id } : { id: a.id, path };
  },
  paths: (a) => (a.path === undefined ? [] : [{ path: a.path, role: 'file' }]),
  rootTarget: rootTargetOf,
  run: async (a, ctx) => {
    if (a.path === undefined) return { ok: false, error: { code: 'not_found', message: NO_SUCH_ID } };
    const head = await ctx.upstream.branchHead(ctx.target.repo, ctx.target.ref);
    if (!head.ok) return head;
    // As much as a get_file line window may read: a file above the cap is served cut rather than refused.
    const cap = contentCap(ctx.binding);
    const maxBytes = Math.max(cap, MAX_WINDOW_SOURCE_BYTES);
    const reads = await ctx.upstream.readFiles(
      ctx.target.repo,
      head.value,
      [a.path],
      Number.isFinite(cap) ? { maxBytes } : {},
    );
    return reads.ok ? { ok: true, value: { commit: head.value, reads: reads.value } } : reads;
  },
  filter: (raw, a, ctx) => {
    if (a.path === undefined) return { kind: 'not_found' };
    const out = fileOutcome(raw.reads, { path: a.path }, ctx, 'keep');
    if (out.kind !== 'ok') return out;
    return { kind: 'ok', value: answerOf({ ...a, path: a.path }, out.value, ctx), commit: raw.commit };
  },
  notFound: (a) => (a.path === undefined ? NO_SUCH_ID : notFoundFile(a.path)),
  // The connector contract: the text block is the same JSON as the structured content.
  render: (o) => JSON.stringify(o),
});
