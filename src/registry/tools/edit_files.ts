import * as z from 'zod/v4';
import { structuralRefusal } from '../../core/index.js';
import { Path, rootTargetOf, withTarget } from '../schemas.js';
import { defineTool } from '../tool.js';
import { norm, writtenFiles, type Pushed } from './commit-write.js';
import { BlobSha, checkEditShape, Edits, EditOut, MAX_EDIT_FILES, renderEdit, type FileEdits } from './edit-plan.js';
import { BRANCH_GONE, draftEdits, runEdits } from './edit-run.js';
import { checkLimits } from './push-checks.js';
import { MAX_MESSAGE_LENGTH, MAX_REASON_LENGTH } from './push_files.js';

const FileIn = z.strictObject({
  path: Path,
  edits: Edits,
  expected_blob_sha: BlobSha.optional(),
});

const shape = {
  files: z.array(FileIn).min(1).max(MAX_EDIT_FILES),
  message: z.string().min(1).max(MAX_MESSAGE_LENGTH),
  reason: z.string().max(MAX_REASON_LENGTH).optional(),
  idempotency_key: z.string().min(1).max(128).optional(),
};
type Args = {
  files: FileEdits[];
  message: string;
  reason?: string | undefined;
  idempotency_key?: string | undefined;
};

export const editFiles = defineTool<Args, Pushed, EditOut>({
  name: 'edit_files',
  access: 'write',
  surfaces: ['agent', 'root'],
  // Unreadable paths are answered by the tool, each exactly as a missing one.
  pathMode: 'each',
  description: 'edit_file for several files in one atomic commit; one refused file writes nothing.',
  annotations: {
    title: 'Edit files',
    readOnlyHint: false,
    destructiveHint: true,
    idempotentHint: false,
    openWorldHint: false,
  },
  agentInput: z.strictObject(shape),
  rootInput: withTarget(shape, true),
  output: EditOut,
  paths: (a) =>
    a.files.flatMap((f) => [
      { path: f.path, role: 'write' as const },
      { path: f.path, role: 'file' as const },
    ]),
  rootTarget: rootTargetOf,
  guard: (a, ctx) => {
    const shapeErr = checkEditShape(a.files);
    if (shapeErr !== undefined || ctx.binding.surface === 'root') return shapeErr;
    return (
      structuralRefusal(
        a.files.map((f) => norm(f.path)),
        ctx.binding,
      ) ?? checkLimits({ message: a.message, files: a.files.map((f) => ({ path: f.path, content: '' })) }, ctx.binding)
    );
  },
  run: (a, ctx) => runEdits(ctx, a.message, a.files),
  filter: (w) =>
    'refused' in w
      ? { kind: 'refused', message: w.refused }
      : { kind: 'ok', value: { branch: w.branch, commit: w.sha, files: writtenFiles(w) }, commit: w.sha },
  notFound: () => BRANCH_GONE,
  proposable: {
    required: (b) => b.approval.push_files === 'required',
    draft: (a, ctx) => draftEdits(ctx, a),
  },
  render: renderEdit,
});
