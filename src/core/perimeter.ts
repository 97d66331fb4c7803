import * as z from 'zod/v4';
import { validateBranchName } from './branch.js';
import { validateGlob } from './glob.js';

/** Perimeter ids are URL path segments; `root` names the operator surface. */
export const RESERVED_IDS: readonly string[] = ['root'];

const Glob = z.string().superRefine((g, ctx) => {
  const r = validateGlob(g);
  if (!r.ok) ctx.addIssue({ code: 'custom', message: r.message });
});

const Branch = z.string().superRefine((b, ctx) => {
  const r = validateBranchName(b);
  if (!r.ok) ctx.addIssue({ code: 'custom', message: r.message });
});

export const PerimeterId = z
  .string()
  .regex(/^[a-z0-9-]+$/, 'Perimeter ids use lowercase letters, digits and "-" only.')
  .max(64, 'Perimeter ids are at most 64 characters.')
  .refine((id) => !RESERVED_IDS.includes(id), { message: 'The id "root" is reserved for the operator surface.' });

/** What an operator sends to create a perimeter (default branch resolved by the server). */
export const PerimeterSpec = z.strictObject({
  id: PerimeterId,
  repo: z.string().min(1, 'repo is required.'),
  tools: z.array(z.string().min(1)).optional(),
  read: z.array(Glob).default([]),
  write: z.array(Glob).default([]),
  branches: z.array(Branch).optional(),
});
export type PerimeterSpec = z.infer<typeof PerimeterSpec>;

/** A stored perimeter: the spec plus the resolved default branch and the branch allowlist. */
export const Perimeter = z.strictObject({
  id: PerimeterId,
  repo: z.string().min(1),
  tools: z.array(z.string().min(1)).optional(),
  read: z.array(Glob),
  write: z.array(Glob),
  default_branch: Branch,
  branches: z.array(Branch).min(1),
});
export type Perimeter = z.infer<typeof Perimeter>;

/** Builds a stored perimeter from a spec: the allowlist always holds the default branch, first, without duplicates. */
export function materialize(spec: PerimeterSpec, defaultBranch: string): Perimeter {
  const branches = [defaultBranch, ...(spec.branches ?? []).filter((b) => b !== defaultBranch)];
  const perimeter: Perimeter = {
    id: spec.id,
    repo: spec.repo,
    read: spec.read,
    write: spec.write,
    default_branch: defaultBranch,
    branches: [...new Set(branches)],
  };
  if (spec.tools) perimeter.tools = [...new Set(spec.tools)];
  return perimeter;
}

/** Formats zod issues as "key: message" lines an operator can act on. */
export function describeIssues(error: z.ZodError): string {
  return error.issues.map((i) => `${i.path.length ? i.path.join('.') : '(root)'}: ${i.message}`).join('; ');
}
