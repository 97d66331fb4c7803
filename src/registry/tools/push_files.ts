import * as z from 'zod/v4';
import type { WriteResult } from '../../upstream/types.js';
import { Path, rootTargetOf, withTarget } from '../schemas.js';
import { defineTool } from '../tool.js';

/** Bounds on one commit, so a single call cannot write an unbounded amount. */
export const MAX_FILES_PER_PUSH = 100;
export const MAX_MESSAGE_LENGTH = 10_000;

const FileIn = z.strictObject({
  path: Path,
  content: z.string().describe('New file content: UTF-8 text, or base64 when `encoding` is "base64".'),
  encoding: z.enum(['utf-8', 'base64']).optional(),
});

const shape = {
  message: z.string().min(1).max(MAX_MESSAGE_LENGTH).describe('Commit message.'),
  files: z.array(FileIn).max(MAX_FILES_PER_PUSH).default([]).describe('Files to create or replace.'),
  delete: z.array(Path).max(MAX_FILES_PER_PUSH).optional().describe('Files to delete.'),
};
type Args = { message: string; files: z.infer<typeof FileIn>[]; delete?: string[] | undefined };

const Output = z.object({ commit: z.string(), branch: z.string(), files_written: z.number(), files_deleted: z.number() });
type Output = z.infer<typeof Output>;

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** Argument checks that need no upstream: duplicates, a path both written and deleted, malformed base64. */
function checkShape(a: Args): string | undefined {
  const deletes = a.delete ?? [];
  if (a.files.length + deletes.length === 0) return 'Nothing to commit: give at least one file or one path to delete.';
  const seen = new Set<string>();
  for (const p of [...a.files.map((f) => f.path), ...deletes]) {
    if (seen.has(p)) return `Path "${p}" appears twice; write or delete each path once per commit.`;
    seen.add(p);
  }
  for (const f of a.files) {
    if (f.encoding === 'base64' && (f.content.length % 4 !== 0 || !BASE64.test(f.content))) {
      return `Content of "${f.path}" is not valid base64.`;
    }
  }
  return undefined;
}

export const pushFiles = defineTool<Args, WriteResult, Output>({
  name: 'push_files',
  access: 'write',
  agentSurface: true,
  pathMode: 'all',
  description:
    'Create, replace or delete files in ONE atomic commit on the bound branch. Every path must be writable in this perimeter, otherwise nothing is written.',
  annotations: { title: 'Commit files', readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  agentInput: z.strictObject(shape),
  rootInput: withTarget(shape, true),
  output: Output,
  paths: (a) => [...a.files.map((f) => ({ path: f.path, role: 'write' as const })), ...(a.delete ?? []).map((path) => ({ path, role: 'write' as const }))],
  rootTarget: rootTargetOf,
  run: async (a, ctx) => {
    const problem = checkShape(a);
    if (problem) return { ok: false, error: { code: 'invalid', message: problem } };
    return ctx.upstream.commitFiles(ctx.target.repo, ctx.target.ref, {
      message: a.message,
      files: a.files.map((f) => ({ path: f.path, content: f.content, encoding: f.encoding ?? 'utf-8' })),
      deletes: a.delete ?? [],
      author: ctx.author,
    });
  },
  // Counts are what was asked, never what existed: the answer must not tell whether a hidden file was there.
  filter: (w, a) => ({
    kind: 'ok',
    value: { commit: w.sha, branch: w.branch, files_written: a.files.length, files_deleted: (a.delete ?? []).length },
    commit: w.sha,
  }),
  notFound: () => 'Not found: the bound branch does not exist any more. Ask the operator for a new connection URL.',
});
