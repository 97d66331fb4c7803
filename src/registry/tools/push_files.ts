import * as z from 'zod/v4';
import { ProposalStatus, structuralRefusal } from '../../core/index.js';
import { Path, rootTargetOf, withTarget } from '../schemas.js';
import { field } from '../render.js';
import { defineTool } from '../tool.js';
import { commitJudged, norm, writtenFiles, type Pushed } from './commit-write.js';
import { BlobSha } from './edit-plan.js';
import { checkLimits, checkSecrets, checkShape } from './push-checks.js';
import { pushPreconditions } from './push-expect.js';

/** Bounds on one commit, so a single call cannot write an unbounded amount. */
export const MAX_FILES_PER_PUSH = 100;
export const MAX_MESSAGE_LENGTH = 10_000;
/** Longest `reason` an agent may give an approver. */
export const MAX_REASON_LENGTH = 2_000;

const FileIn = z.strictObject({
  path: Path,
  content: z.string().describe('New file content: UTF-8 text, or base64 when `encoding` is "base64".'),
  encoding: z.enum(['utf-8', 'base64']).optional(),
  expected_blob_sha: BlobSha.optional(),
});

const shape = {
  message: z.string().min(1).max(MAX_MESSAGE_LENGTH),
  files: z.array(FileIn).max(MAX_FILES_PER_PUSH).default([]),
  delete: z.array(Path).max(MAX_FILES_PER_PUSH).optional(),
  reason: z.string().max(MAX_REASON_LENGTH).optional().describe('Why (shown to the approver).'),
  idempotency_key: z.string().min(1).max(128).optional().describe('Same key, same proposal.'),
  expected_head: z
    .string()
    .regex(/^(?:[0-9a-f]{40}|[0-9a-f]{64})$/)
    .optional()
    .describe("Newest commit you see (list_commits' first); refused if moved."),
};
type Args = {
  message: string;
  files: z.infer<typeof FileIn>[];
  delete?: string[] | undefined;
  reason?: string | undefined;
  idempotency_key?: string | undefined;
  expected_head?: string | undefined;
};

// One object for both answers (MCP output schemas are objects): a commit, or a proposal waiting for approval.
const Output = z.object({
  branch: z.string(),
  commit: z.string().optional(),
  files_written: z.number().optional(),
  files_deleted: z.number().optional(),
  files: z.array(z.object({ path: z.string(), blob_sha: z.string(), size: z.number() })).optional(),
  proposal_id: z
    .string()
    .optional()
    .describe('Set when this perimeter requires approval: poll proposal_status with it.'),
  status: ProposalStatus.optional().describe(
    'The proposal\'s status: "pending" when new; a retried idempotency key answers its current one.',
  ),
  summary: z.string().optional(),
});
type Output = z.infer<typeof Output>;

export const pushFiles = defineTool<Args, Pushed, Output>({
  name: 'push_files',
  access: 'write',
  surfaces: ['agent', 'root'],
  // Only `expected_blob_sha` names a path to read; an unreadable one is answered by the tool, as a stale one.
  pathMode: 'each',
  description:
    'Create, replace or delete files in one atomic commit on the bound branch; an unwritable path refuses it all. Where approval is required it waits as a proposal.',
  annotations: {
    title: 'Commit files',
    readOnlyHint: false,
    destructiveHint: true,
    idempotentHint: false,
    openWorldHint: false,
  },
  agentInput: z.strictObject(shape),
  rootInput: withTarget(shape, true),
  output: Output,
  paths: (a) => [
    ...a.files.map((f) => ({ path: f.path, role: 'write' as const })),
    ...(a.delete ?? []).map((path) => ({ path, role: 'write' as const })),
    ...a.files.flatMap((f) => (f.expected_blob_sha === undefined ? [] : [{ path: f.path, role: 'file' as const }])),
  ],
  rootTarget: rootTargetOf,
  guard: (a, ctx) => {
    const shape = checkShape(a);
    if (shape !== undefined || ctx.binding.surface === 'root') return shape;
    return (
      structuralRefusal(
        a.files.map((f) => norm(f.path)),
        ctx.binding,
      ) ??
      checkLimits(a, ctx.binding) ??
      checkSecrets(a, ctx.binding)
    );
  },
  run: async (a, ctx) => {
    const pre = await pushPreconditions(ctx, a);
    if (pre.kind === 'refused') return { ok: true, value: { refused: pre.message } };
    if (pre.kind === 'error') return { ok: false, error: pre.error };
    return commitJudged(ctx, {
      message: a.message,
      files: a.files.map((f) => ({ path: f.path, content: f.content, encoding: f.encoding ?? 'utf-8' })),
      deletes: a.delete ?? [],
      ...(pre.kind === 'checked' ? { base: { head: pre.head, unchanged: [] } } : {}),
    });
  },
  // Counts are what was asked, never what existed: the answer must not tell whether a hidden file was there.
  filter: (w, a) =>
    'refused' in w
      ? { kind: 'refused', message: w.refused }
      : {
          kind: 'ok',
          value: {
            commit: w.sha,
            branch: w.branch,
            files_written: a.files.length,
            files_deleted: (a.delete ?? []).length,
            files: writtenFiles(w),
          },
          commit: w.sha,
        },
  notFound: () => 'Not found: the bound branch does not exist any more. Ask the operator for a new connection URL.',
  proposable: {
    required: (b) => b.approval.push_files === 'required',
    draft: async (a, ctx) => {
      const pre = await pushPreconditions(ctx, a);
      if (pre.kind === 'refused' || pre.kind === 'error') return pre;
      const paths = [...a.files.map((f) => norm(f.path)), ...(a.delete ?? []).map(norm)];
      const isProtected = ctx.binding.surface === 'agent' ? ctx.binding.isProtected : () => false;
      return {
        kind: 'draft',
        draft: {
          change: {
            kind: 'push_files',
            message: a.message,
            files: a.files.map((f) => ({ path: norm(f.path), content: f.content, encoding: f.encoding ?? 'utf-8' })),
            deletes: (a.delete ?? []).map(norm),
          },
          facts: { paths, protected_paths: paths.filter(isProtected) },
          // Checked at this head: the proposal is stale if the branch changes its files after it.
          ...(pre.kind === 'checked' ? { base: pre.head } : {}),
          ...(a.reason === undefined ? {} : { agentReason: a.reason }),
          ...(a.idempotency_key === undefined ? {} : { idempotencyKey: a.idempotency_key }),
        },
      };
    },
  },
  render: (o) =>
    o.proposal_id !== undefined
      ? `proposal ${o.proposal_id} ${o.status ?? 'pending'} on ${field(o.branch)}: ${field(o.summary ?? '')}\n`
      : `committed ${o.commit} on ${field(o.branch)}: ${o.files_written} written, ${o.files_deleted} deleted\n` +
        (o.files ?? []).map((f) => `${f.blob_sha} ${f.size} ${field(f.path)}\n`).join(''),
});
