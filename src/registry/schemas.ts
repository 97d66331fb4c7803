import * as z from 'zod/v4';

// Shared argument and output pieces. Agent schemas are strict: an agent that sends `repo` or `branch` learns at once
// that it cannot choose them, instead of being silently ignored.

export const Path = z.string().max(4096).describe('Repository-relative path, "/"-separated, no leading "/".');
export const Repo = z.string().min(1).max(4096).describe('Repository: "owner/name" on GitHub, or the local path.');
export const Ref = z.string().min(1).max(255).describe('Branch name or commit SHA. Default: the default branch.');

/** A page of a byte-bounded answer (get_tree); the answer's `next_page` names the next one. */
export const Page = z.number().int().min(1).max(1_000_000).optional();

/** Adds the operator surface's repo and ref to an agent schema. */
export function withTarget<S extends z.ZodRawShape>(shape: S, refRequired = false) {
  return z.strictObject({ ...shape, repo: Repo, ref: refRequired ? Ref : Ref.optional() });
}

export const PersonOut = z.object({ name: z.string(), email: z.string(), date: z.string() });

export const CommitOut = z.object({
  sha: z.string(),
  message: z.string(),
  author: PersonOut,
  committer: PersonOut,
  parents: z.array(z.string()).optional(),
});

export const FileChangeOut = z.object({
  path: z.string(),
  status: z.string(),
  previous_path: z.string().optional(),
  additions: z.number(),
  deletions: z.number(),
  patch: z.string().optional(),
});

/** Reads the operator surface's target; an absent ref means "the default branch" (resolved by the MCP layer). */
export function rootTargetOf(args: unknown): { repo: string; ref: string } {
  const a = args as { repo: string; ref?: string };
  return { repo: a.repo, ref: a.ref ?? '' };
}
