import * as z from 'zod/v4';
import { AgentName } from './agents.js';
import { validateBranchName } from './branch.js';
import { validateGlob } from './glob.js';
import { PrivacyPatternList } from './privacy.js';
import { AllowProtectedList } from './protected.js';

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

/**
 * Limits of each agent (each key) of a perimeter, inside the perimeter's own (issue 23): a call or a commit must fit
 * both. Absent fields: no per-agent limit, only the perimeter's.
 */
export const PerAgentLimits = z.strictObject({
  calls_per_minute: z.number().int().min(1).max(1_000_000).optional(),
  commits_per_hour: z.number().int().min(0).max(1_000_000).optional(),
});
export type PerAgentLimits = z.infer<typeof PerAgentLimits>;

/** Per-perimeter request limits; absent fields take the server's defaults. */
export const Limits = z.strictObject({
  /** What each agent of the perimeter may spend on its own (counted in the store, shared across instances). */
  per_agent: PerAgentLimits.optional(),
  calls_per_minute: z.number().int().min(1).max(1_000_000).optional(),
  commits_per_hour: z.number().int().min(0).max(1_000_000).optional(),
  files_per_commit: z.number().int().min(1).max(100).optional(),
  max_file_bytes: z
    .number()
    .int()
    .min(1)
    .max(100 * 1024 * 1024)
    .optional(),
  /** Largest text block one tool answer may carry; bigger answers are refused or paged, never cut. */
  max_answer_bytes: z
    .number()
    .int()
    .min(1024)
    .max(64 * 1024 * 1024)
    .optional(),
  /** Tool calls of this perimeter running at once; more wait in a bounded queue. */
  concurrent_calls: z.number().int().min(1).max(64).optional(),
  /** Calls that may wait for a slot; beyond it a call is answered "busy, retry". */
  queued_calls: z.number().int().min(0).max(1_000).optional(),
  /** Upstream (GitHub) requests one tool call may make. */
  upstream_requests_per_call: z.number().int().min(1).max(100_000).optional(),
  /** This perimeter's share of the GitHub request budget, per hour. */
  upstream_requests_per_hour: z.number().int().min(1).max(1_000_000).optional(),
  /** Longest lease an agent may take (seconds, default 3600). */
  lease_max_ttl: z.number().int().min(1).max(86_400).optional(),
});
export type Limits = z.infer<typeof Limits>;

/** The default cap on one tool answer's text (issue 11: no answer above 1 MiB unless the operator says so). */
export const DEFAULT_ANSWER_BYTES = 1024 * 1024;

/** The answer cap of a binding: its perimeter's limit, else the default; the operator surface is not capped. */
export function answerCap(
  b: { readonly surface: 'agent'; readonly limits: Limits } | { readonly surface: 'root' },
): number {
  return b.surface === 'agent' ? (b.limits.max_answer_bytes ?? DEFAULT_ANSWER_BYTES) : Number.POSITIVE_INFINITY;
}

/**
 * What a tool may put in one half of a result. The text block and the structuredContent carry the same information side
 * by side, so each gets half of the answer cap and the whole result (both halves) stays within `max_answer_bytes`.
 */
export function contentCap(
  b: { readonly surface: 'agent'; readonly limits: Limits } | { readonly surface: 'root' },
): number {
  const cap = answerCap(b);
  return Number.isFinite(cap) ? Math.floor(cap / 2) : cap;
}

/**
 * Which writes wait for a person. `push_files: "required"` turns an allowed push into a pending proposal;
 * `workspace` (working-tree proposals) can only be "required".
 */
export const Approval = z.strictObject({
  push_files: z.enum(['none', 'required']).optional(),
  workspace: z.literal('required').optional(),
});
export type Approval = z.infer<typeof Approval>;

/**
 * Pull requests from the bound branch (absent = no PR tools). `base` defaults to the perimeter's default branch;
 * every base (`base` and `bases`) must be in the perimeter's branches, since a PR's diff shows the base beside the
 * agent's work. The head is never named: it is the URL-bound branch.
 */
export const Pulls = z.strictObject({
  base: Branch.optional(),
  bases: z.array(Branch).min(1).max(32).optional(),
  /** Open new PRs as drafts (the default); a call's `draft` overrides it. */
  draft: z.boolean().optional(),
  /** Open PRs this perimeter may have at once (default 5). */
  max_open: z.number().int().min(1).max(100).optional(),
  /** False removes get_pull_request_status (CI checks and statuses). */
  ci: z.boolean().optional(),
});
export type Pulls = z.infer<typeof Pulls>;

/** The open-PR cap of a perimeter that sets none. */
export const DEFAULT_MAX_OPEN_PULLS = 5;

/** Every base a perimeter's PRs may target, the default base first (no duplicates). */
export function pullBases(p: { readonly default_branch: string; readonly pulls?: Pulls | undefined }): string[] {
  if (!p.pulls) return [];
  return [...new Set([p.pulls.base ?? p.default_branch, ...(p.pulls.bases ?? [])])];
}

/** A message naming the PR bases that are not allowlisted branches, or undefined when all are. */
export function pullsProblem(p: {
  readonly default_branch: string;
  readonly branches: readonly string[];
  readonly pulls?: Pulls | undefined;
}): string | undefined {
  const outside = pullBases(p).filter((b) => !p.branches.includes(b));
  if (outside.length === 0) return undefined;
  const names = outside.map((b) => `"${b}"`).join(', ');
  return `pulls: base ${names} ${outside.length === 1 ? 'is' : 'are'} not in this perimeter's branches; add ${outside.length === 1 ? 'it' : 'them'} to branches first.`;
}

/** Options every perimeter may set on top of read/write; none of them can loosen the built-in privacy zones. */
const Hardening = {
  /** Extra privacy patterns (hidden even inside `read`). */
  private: PrivacyPatternList.optional(),
  /** Protected paths this perimeter may write anyway (must also match `write`). */
  allow_protected: AllowProtectedList.optional(),
  /** Let push_files commit content that looks like a credential. */
  allow_secrets: z.boolean().optional(),
  /** Serve binary files as base64 (otherwise they are refused). */
  allow_binary: z.boolean().optional(),
  limits: Limits.optional(),
  approval: Approval.optional(),
  pulls: Pulls.optional(),
};

/**
 * An agent key as stored: never the key itself, only its hash. `agent` names the one agent the key stands for (unique
 * within the perimeter); keys stored before agents had names have none and stand for `key-<id>` (see `agentOf`).
 */
export const AgentKey = z.strictObject({
  id: z.string().regex(/^[a-z0-9]{8,32}$/),
  hash: z.string().regex(/^[0-9a-f]{64}$/),
  created_at: z.string(),
  agent: AgentName.optional(),
});
export type AgentKey = z.infer<typeof AgentKey>;

/** What an operator sends to create a perimeter (default branch resolved by the server). */
export const PerimeterSpec = z.strictObject({
  id: PerimeterId,
  repo: z.string().min(1, 'repo is required.'),
  tools: z.array(z.string().min(1)).optional(),
  read: z.array(Glob).default([]),
  write: z.array(Glob).default([]),
  branches: z.array(Branch).optional(),
  ...Hardening,
});
export type PerimeterSpec = z.infer<typeof PerimeterSpec>;

/**
 * Where a stored perimeter came from: `config` (declared in the `--config` file; removed at a start whose config no
 * longer declares it) or `runtime` (created through `/api`; kept until deleted). Absent on perimeters stored before
 * the origin was recorded: they are kept, as runtime ones are.
 */
export const PerimeterOrigin = z.enum(['config', 'runtime']);
export type PerimeterOrigin = z.infer<typeof PerimeterOrigin>;

/** A stored perimeter: the spec plus the resolved default branch and the branch allowlist. */
export const Perimeter = z.strictObject({
  id: PerimeterId,
  repo: z.string().min(1),
  tools: z.array(z.string().min(1)).optional(),
  read: z.array(Glob),
  write: z.array(Glob),
  default_branch: Branch,
  branches: z.array(Branch).min(1),
  ...Hardening,
  keys: z.array(AgentKey).optional(),
  origin: PerimeterOrigin.optional(),
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
  if (spec.private) perimeter.private = spec.private;
  if (spec.allow_protected) perimeter.allow_protected = spec.allow_protected;
  if (spec.allow_secrets !== undefined) perimeter.allow_secrets = spec.allow_secrets;
  if (spec.allow_binary !== undefined) perimeter.allow_binary = spec.allow_binary;
  if (spec.limits) perimeter.limits = spec.limits;
  if (spec.approval) perimeter.approval = spec.approval;
  if (spec.pulls) perimeter.pulls = spec.pulls;
  return perimeter;
}

/** Formats zod issues as "key: message" lines an operator can act on. */
export function describeIssues(error: z.ZodError): string {
  return error.issues.map((i) => `${i.path.length ? i.path.join('.') : '(top level)'}: ${i.message}`).join('; ');
}
