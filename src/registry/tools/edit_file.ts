import * as z from 'zod/v4';
import { structuralRefusal } from '../../core/index.js';
import { Path, rootTargetOf, withTarget } from '../schemas.js';
import { defineTool } from '../tool.js';
import { norm, writtenFiles, type Pushed } from './commit-write.js';
import { BlobSha, checkEditShape, Edits, EditOut, renderEdit, type FileEdits } from './edit-plan.js';
import { BRANCH_GONE, draftEdits, runEdits } from './edit-run.js';
import { checkLimits } from './push-checks.js';
import { MAX_MESSAGE_LENGTH, MAX_REASON_LENGTH } from './push_files.js';

const shape = {
  path: Path,
  edits: Edits,
  expected_blob_sha: BlobSha.optional(),
  message: z.string().min(1).max(MAX_MESSAGE_LENGTH).optional(),
  reason: z.string().max(MAX_REASON_LENGTH).optional(),
  idempotency_key: z.string().min(1).max(128).optional(),
};
type Args = FileEdits & {
  message?: string | undefined;
  reason?: string | undefined;
  idempotency_key?: string | undefined;
};

const messageOf = (a: Args): string => a.message ?? `Edit ${norm(a.path)}\n`;
const filesOf = (a: Args): FileEdits[] => [
  {
    path: a.path,
    edits: a.edits,
    ...(a.expected_blob_sha === undefined ? {} : { expected_blob_sha: a.expected_blob_sha }),
  },
];

export const editFile = defineTool<Args, Pushed, EditOut>({
  name: 'edit_file',
  access: 'write',
  surfaces: ['agent', 'root'],
  // An unreadable path is answered by the tool, exactly as a missing one (never by the policy's own not-found).
  pathMode: 'each',
  description:
    'Replace exact text in a file you can read, in one commit. Each old_text must occur once in the file as it is (or give occurrence); a mismatch or a stale expected_blob_sha writes nothing.',
  annotations: {
    title: 'Edit a file',
    readOnlyHint: false,
    destructiveHint: true,
    idempotentHint: false,
    openWorldHint: false,
  },
  agentInput: z.strictObject(shape),
  rootInput: withTarget(shape, true),
  output: EditOut,
  paths: (a) => [
    { path: a.path, role: 'write' },
    { path: a.path, role: 'file' },
  ],
  rootTarget: rootTargetOf,
  guard: (a, ctx) => {
    const shapeErr = checkEditShape(filesOf(a));
    if (shapeErr !== undefined || ctx.binding.surface === 'root') return shapeErr;
    return (
      structuralRefusal([norm(a.path)], ctx.binding) ??
      checkLimits({ message: messageOf(a), files: [{ path: a.path, content: '' }] }, ctx.binding)
    );
  },
  run: (a, ctx) => runEdits(ctx, messageOf(a), filesOf(a)),
  filter: (w) =>
    'refused' in w
      ? { kind: 'refused', message: w.refused }
      : { kind: 'ok', value: { branch: w.branch, commit: w.sha, files: writtenFiles(w) }, commit: w.sha },
  notFound: () => BRANCH_GONE,
  proposable: {
    required: (b) => b.approval.push_files === 'required',
    draft: (a, ctx) => draftEdits(ctx, { ...a, message: messageOf(a), files: filesOf(a) }),
  },
  render: renderEdit,
});
