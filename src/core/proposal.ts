// A write proposal: what an agent asked for, frozen, and where it is in its lifecycle. Schemas first, types derived;
// the record is a closed union twice over — the change by `kind`, the lifecycle by `status` — so a new kind of change
// (a workspace proposal) or a new state fails to compile wherever it is not handled.
import * as z from 'zod/v4';
import { stepParts, WORKSPACE_CHANGES, type WorkspaceStep } from './proposal-workspace.js';

/** Every lifecycle state; `applied`, `failed`, `rejected`, `cancelled` and `expired` are terminal. */
export const PROPOSAL_STATUSES = [
  'pending',
  'approved',
  'applying',
  'applied',
  'failed',
  'rejected',
  'cancelled',
  'expired',
] as const;
export const ProposalStatus = z.enum(PROPOSAL_STATUSES);
export type ProposalStatus = z.infer<typeof ProposalStatus>;

/** States a proposal never leaves. */
export const TERMINAL_STATUSES: readonly ProposalStatus[] = ['applied', 'failed', 'rejected', 'cancelled', 'expired'];

/**
 * Caps on the agent-supplied fields a record stores (issue 19), whatever tool made it: the tools' own schemas refuse
 * longer values first, and the store bounds the whole record's bytes (`proposal-bounds.ts`).
 */
export const MAX_AGENT_REASON = 2_000;
export const MAX_IDEMPOTENCY_KEY = 128;
/** The agent field's cap: records from before agent ids held a label of the client's declared name (up to 100 characters) and more. */
export const MAX_AGENT_LABEL = 512;

/** Proposal ids: 24 lowercase base32 characters of randomness (120 bits), never a counter. */
export const ProposalId = z.string().regex(/^p[a-z2-7]{24}$/, 'not a proposal id');

const File = z.strictObject({ path: z.string(), content: z.string(), encoding: z.enum(['utf-8', 'base64']) });

/** push_files held for approval: the exact commit the agent asked for. */
export const PushFilesChange = z.strictObject({
  kind: z.literal('push_files'),
  message: z.string(),
  files: z.array(File),
  deletes: z.array(z.string()),
});
export type PushFilesChange = z.infer<typeof PushFilesChange>;

/**
 * create_pull_request on a local perimeter (issue 22): the bound branch's net change (merge base → `head`), frozen as
 * the files it writes and deletes on `into`, applied like an approved push there. `number` is the PR number, an integer
 * per repository kept here so it means the same on both upstreams.
 */
export const PullRequestChange = z.strictObject({
  kind: z.literal('pull_request'),
  number: z.number().int().min(1),
  into: z.string().min(1),
  head: z.string().min(1),
  title: z.string(),
  body: z.string(),
  draft: z.boolean(),
  files: z.array(File),
  deletes: z.array(z.string()),
});
export type PullRequestChange = z.infer<typeof PullRequestChange>;

/** The closed union of proposable changes: push_files, a local PR, and the workspace kinds (propose_commit, …). */
export const ProposalChange = z.discriminatedUnion('kind', [PushFilesChange, PullRequestChange, ...WORKSPACE_CHANGES]);
export type ProposalChange = z.infer<typeof ProposalChange>;
export type ProposalKind = ProposalChange['kind'];
/** A workspace change (every kind but push_files and a local PR). */
export type WorkspaceChange = Exclude<ProposalChange, PushFilesChange | PullRequestChange>;
/** A commit of bytes frozen in the proposal: push_files on the bound branch, or a local PR's files on its base. */
export type CommitChange = PushFilesChange | PullRequestChange;

/**
 * The two families a change belongs to: a commit of the agent's own bytes (`push`), or operations on a working tree
 * (`workspace`, eight kinds with one applier). Switches that only care which family name two cases, not nine.
 */
export type ProposalFamily =
  | { readonly family: 'push'; readonly change: CommitChange }
  | { readonly family: 'workspace'; readonly change: WorkspaceChange };

/** The family of a change, narrowed for the switch that follows. */
export const familyOf = (c: ProposalChange): ProposalFamily =>
  c.kind === 'push_files' || c.kind === 'pull_request'
    ? { family: 'push', change: c }
    : { family: 'workspace', change: c };

/** The commit message a commit change lands with: the agent's message, or a local PR's title (#n) and body. */
export function commitMessage(c: CommitChange): string {
  return c.kind === 'push_files' ? c.message : `${c.title} (#${c.number})${c.body === '' ? '' : `\n\n${c.body}`}`;
}

/** The steps a change runs on a working tree, in order (one for a single operation); empty for push_files. */
export function workspaceSteps(c: ProposalChange): WorkspaceStep[] {
  if (c.kind === 'push_files' || c.kind === 'pull_request') return [];
  if (c.kind === 'plan') return c.steps;
  const { fingerprint: _fp, ...step } = c;
  return [step];
}

/** Facts the server computed when the proposal was made (shown to the approver, never taken from the agent). */
export const ProposalFacts = z.strictObject({
  /** Paths written or deleted, in the order the agent gave them. */
  paths: z.array(z.string()),
  /** Paths among them that are protected (granted by the perimeter, or the write would have been refused). */
  protected_paths: z.array(z.string()),
  /**
   * Workspace proposals: paths the operation would change that the agent can neither read nor write. Never judged
   * when the agent proposes (its answer would depend on them); the approval refuses them, in the operator's view.
   */
  outside_window: z.array(z.string()).optional(),
  /** Branches an approval would create and add to the allowlist, each with the allowlisted branch its commit is read through. */
  branch_sources: z.array(z.strictObject({ branch: z.string(), from: z.string(), reached_by: z.string() })).optional(),
  /**
   * Other agents working on the same paths when the proposal was made (issue 23): their pending proposals and recent
   * commits on this branch, as `agent@perimeter` with the overlapping paths. Operator-facing only.
   */
  other_agents: z
    .array(z.strictObject({ agent: z.string(), paths: z.array(z.string()).max(50) }))
    .max(20)
    .optional(),
  /** A push: the remote and its branch it would update, and the commits it would send (newest first, at most 50). */
  push: z.strictObject({ remote: z.string(), branch: z.string(), commits: z.array(z.string()).max(50) }).optional(),
});
export type ProposalFacts = z.infer<typeof ProposalFacts>;

const Common = {
  id: ProposalId,
  perimeter: z.string().min(1),
  repo: z.string().min(1),
  branch: z.string().min(1),
  /** The branch head the agent saw when it proposed: part of what is approved. */
  base: z.string().min(1),
  /**
   * The agent id of the key that proposed (issue 23). Records stored before agent ids hold what the MCP client
   * declared instead (a label, never authorization): `isAgentName` tells the two apart.
   */
  agent: z.string().max(MAX_AGENT_LABEL),
  /** The agent's own words about why; shown as the agent's, never as a server fact. */
  agent_reason: z.string().max(MAX_AGENT_REASON).optional(),
  idempotency_key: z.string().min(1).max(MAX_IDEMPOTENCY_KEY).optional(),
  /** `sha256:<hex>` of the canonical change (perimeter, branch, base, kind and content): what an approval binds to. */
  hash: z.string().regex(/^sha256:[0-9a-f]{64}$/),
  /** One line for lists and for the agent's answer. */
  summary: z.string(),
  facts: ProposalFacts,
  change: ProposalChange,
  created_at: z.iso.datetime(),
  updated_at: z.iso.datetime(),
  expires_at: z.iso.datetime(),
};
/** Who decided and when (an operator, or `agent` for a cancel, or `server` for an expiry or a reconcile). */
const Decided = { decided_by: z.string().min(1), decided_at: z.iso.datetime() };
/** The restore point taken before a local write (absent upstreams that have none, such as GitHub). */
const Restore = { restore: z.string().optional() };

/** A stored proposal. */
export const Proposal = z.discriminatedUnion('status', [
  z.strictObject({ ...Common, status: z.literal('pending') }),
  z.strictObject({ ...Common, ...Decided, status: z.literal('approved') }),
  z.strictObject({ ...Common, ...Decided, ...Restore, status: z.literal('applying') }),
  z.strictObject({
    ...Common,
    ...Decided,
    ...Restore,
    status: z.literal('applied'),
    commit: z.string().min(1),
    /** A workspace change that left the branch head where it was (a patch, a discard, a branch, a push): `commit` is that head. */
    head_unchanged: z.literal(true).optional(),
  }),
  z.strictObject({ ...Common, ...Decided, ...Restore, status: z.literal('failed'), reason: z.string() }),
  z.strictObject({ ...Common, ...Decided, status: z.literal('rejected'), reason: z.string() }),
  z.strictObject({ ...Common, ...Decided, status: z.literal('cancelled') }),
  z.strictObject({ ...Common, ...Decided, status: z.literal('expired') }),
]);
export type Proposal = z.infer<typeof Proposal>;

/** True once the proposal can never change again. */
export const isTerminal = (p: { readonly status: ProposalStatus }): boolean => TERMINAL_STATUSES.includes(p.status);

/**
 * The exact bytes an approval binds to, before hashing: perimeter, branch, base commit, kind and the whole change, in a
 * fixed order (an array, so no key ordering can make two different changes print alike).
 */
export function changeDigestInput(p: {
  perimeter: string;
  branch: string;
  base: string;
  change: ProposalChange;
}): string {
  return JSON.stringify([p.perimeter, p.branch, p.base, ...changeParts(p.change)]);
}

/**
 * What two proposals with the same idempotency key must share: everything but the base they were made on, and for a
 * workspace change everything but its fingerprint. The fingerprint hashes tree state the agent may not read (a hidden
 * dirty file a reset would drop, a write-only file's bytes): matching on it would tell the agent that state moved.
 */
export function changeIdentity(p: { perimeter: string; branch: string; change: ProposalChange }): string {
  const parts =
    p.change.kind === 'push_files' || p.change.kind === 'pull_request'
      ? changeParts(p.change)
      : [p.change.kind, workspaceSteps(p.change).map(stepParts)];
  return JSON.stringify([p.perimeter, p.branch, ...parts]);
}

function changeParts(c: ProposalChange): unknown[] {
  switch (c.kind) {
    case 'push_files':
      return [c.kind, c.message, c.files.map((f) => [f.path, f.encoding, f.content]), c.deletes];
    case 'pull_request':
      return [c.kind, c.into, c.head, c.title, c.body, c.draft];
    case 'commit':
    case 'patch':
    case 'discard':
    case 'merge':
    case 'rebase':
    case 'reset':
    case 'branch':
    case 'push':
      return [...stepParts(workspaceSteps(c)[0]!), c.fingerprint];
    case 'plan':
      return [c.kind, c.steps.map(stepParts), c.fingerprint];
    default:
      return assertNeverChange(c);
  }
}

function assertNeverChange(c: never): never {
  throw new Error(`unexpected proposal change: ${JSON.stringify(c)}`);
}
