// What edit_file and edit_files share: the argument shapes, and the plan of one call at one head (read the files the
// agent may read, apply its edits to exactly those bytes, check the result as push_files checks its content).
import * as z from 'zod/v4';
import { applyEdits, MAX_COUNTED, ProposalStatus, type TextEdit } from '../../core/index.js';
import type { FileRead, UpstreamError } from '../../upstream/types.js';
import { field } from '../render.js';
import type { ToolContext } from '../tool.js';
import { norm } from './commit-write.js';
import { serveOn } from './get_file.js';
import { checkLimits, checkSecrets, DEFAULT_MAX_FILE_BYTES } from './push-checks.js';

/** Bounds on one call: edits per file, files per call, and the length of each text (in UTF-16 code units). */
export const MAX_EDITS_PER_FILE = 100;
export const MAX_EDIT_FILES = 50;
export const MAX_EDIT_TEXT = 1_000_000;

export const EditIn = z.strictObject({
  old_text: z.string().min(1).max(MAX_EDIT_TEXT).describe('Exact text as the file holds it now.'),
  new_text: z.string().max(MAX_EDIT_TEXT),
  occurrence: z.number().int().min(1).max(MAX_COUNTED).optional().describe('Which match, from 1.'),
});

export const Edits = z.array(EditIn).min(1).max(MAX_EDITS_PER_FILE);

/** A git blob id (SHA-1 or SHA-256), as get_file answers it in `sha`. */
export const BlobSha = z
  .string()
  .regex(/^(?:[0-9a-f]{40}|[0-9a-f]{64})$/)
  .describe("get_file's `sha` when you read it; refused if changed.");

/** One file's edits, as both tools take them. */
export interface FileEdits {
  readonly path: string;
  readonly edits: readonly TextEdit[];
  readonly expected_blob_sha?: string | undefined;
}

/** What one call becomes at one head: the files to write, or why nothing is written. */
export type EditPlan =
  | { readonly kind: 'write'; readonly files: readonly { path: string; content: string }[] }
  | { readonly kind: 'refused'; readonly message: string }
  | { readonly kind: 'error'; readonly error: UpstreamError };

/**
 * The one answer for a file an edit cannot see: missing, unreadable, or a link whose target is hidden. It names only
 * the path the agent sent, so an edit is never an existence or content oracle for hidden files (SPEC §4.6).
 */
export const notFoundEdit = (path: string): string =>
  `Not found: file "${path}" does not exist on this branch; nothing was written. Use get_tree to see which files exist.`;

const refused = (message: string): EditPlan => ({ kind: 'refused', message });

/** Checks that need no upstream: one entry per path. */
export function checkEditShape(files: readonly FileEdits[]): string | undefined {
  const seen = new Set<string>();
  for (const f of files) {
    const p = norm(f.path);
    if (seen.has(p)) return `Path "${p}" appears twice; give all edits of a file in one entry.`;
    seen.add(p);
  }
  return undefined;
}

/**
 * Plans the call at commit `head`. Order matters, and is the same for every file: first whether each file can be
 * seen at all (hidden and missing read the same, before anything is said about any content), then per file its
 * kind, `expected_blob_sha` and edits, then the result as push_files judges content (size, secrets, limits).
 */
export async function planEdits(
  ctx: ToolContext,
  head: string,
  message: string,
  files: readonly FileEdits[],
): Promise<EditPlan> {
  const b = ctx.binding;
  const maxBytes = (b.surface === 'agent' ? b.limits.max_file_bytes : undefined) ?? DEFAULT_MAX_FILE_BYTES;
  const paths = files.map((f) => norm(f.path));
  // Hidden paths are never read: their bytes could only ever be a difference.
  const visible = paths.filter((p) => !ctx.hidden.has(p));
  const reads = new Map<string, FileRead>();
  if (visible.length > 0) {
    const r = await ctx.upstream.readFiles(ctx.target.repo, head, visible, { maxBytes: maxBytes * visible.length });
    if (!r.ok) return { kind: 'error', error: r.error };
    for (const f of r.value) reads.set(f.path, f);
  }
  const texts: string[] = [];
  for (const p of paths) {
    const f = reads.get(p);
    if (ctx.hidden.has(p) || f === undefined || (!f.ok && f.error.code === 'not_found'))
      return refused(notFoundEdit(p));
    if (f.ok && serveOn(f, ctx).kind === 'missing') return refused(notFoundEdit(p));
  }
  for (const [i, p] of paths.entries()) {
    const f = reads.get(p);
    const want = files[i];
    if (f === undefined || want === undefined) return refused(notFoundEdit(p));
    if (!f.ok) {
      if (f.error.code === 'too_large')
        return refused(
          `"${p}" is too large to edit here (${f.size ?? 'over'} bytes; this perimeter's per-file limit is ${maxBytes} bytes for each file of a call); nothing was written.`,
        );
      return { kind: 'error', error: f.error };
    }
    if (f.size > maxBytes)
      return refused(
        `"${p}" is ${f.size} bytes, over this perimeter's per-file limit of ${maxBytes} bytes; nothing was written.`,
      );
    const served = serveOn(f, ctx);
    if (f.symlink === true)
      return refused(`"${p}" is a symbolic link; edit the file it points to. Nothing was written.`);
    if (served.kind !== 'text')
      return refused(
        `"${p}" is not UTF-8 text; edits apply to text files only (push_files replaces a whole file). Nothing was written.`,
      );
    if (want.expected_blob_sha !== undefined && want.expected_blob_sha !== f.sha)
      return refused(
        `Stale: "${p}" changed since you read it (its blob is ${f.sha} now, not ${want.expected_blob_sha}); nothing was written. Read it again and retry.`,
      );
    const edited = applyEdits(p, served.text, want.edits);
    if (!edited.ok) return refused(edited.message);
    texts.push(edited.value);
  }
  const out = paths.map((path, i) => ({ path, content: texts[i] ?? '' }));
  if (b.surface === 'agent') {
    const push = { message, files: out.map((f) => ({ ...f, encoding: 'utf-8' as const })) };
    const limit = checkLimits(push, b) ?? checkSecrets(push, b);
    if (limit !== undefined) return refused(limit);
  }
  return { kind: 'write', files: out };
}

/** The answer both edit tools give: a commit and what it wrote, or the proposal that waits for a person. */
export const EditOut = z.object({
  branch: z.string(),
  commit: z.string().optional(),
  files: z.array(z.object({ path: z.string(), blob_sha: z.string(), size: z.number() })).optional(),
  proposal_id: z.string().optional(),
  status: ProposalStatus.optional(),
  summary: z.string().optional(),
});
export type EditOut = z.infer<typeof EditOut>;

/** The text block: the commit and each file's new blob, or the proposal. */
export function renderEdit(o: EditOut): string {
  if (o.proposal_id !== undefined)
    return `proposal ${o.proposal_id} ${o.status ?? 'pending'} on ${field(o.branch)}: ${field(o.summary ?? '')}\n`;
  const files = (o.files ?? []).map((f) => `${f.blob_sha} ${f.size} ${field(f.path)}\n`).join('');
  return `committed ${o.commit ?? ''} on ${field(o.branch)}\n${files}`;
}
