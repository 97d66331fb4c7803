// Every `/api` answer, as zod schemas, in one table: the router builds each body through its route's schema
// (reply.ts) and the CLI parses each answer with the same one (src/cli/client.ts). A route's shape changes here or
// nowhere; the published JSON Schemas are snapshotted in test/http/__apisnaps__ and reviewed when they change.
import * as z from 'zod/v4';
import { Approval, Limits, PerimeterOrigin, Proposal, ProposalStatus, Pulls } from '../../core/index.js';
import { Output as CommitOutput } from '../../registry/tools/get_commit.js';
import { Output as CommitPage } from '../../registry/tools/list_commits.js';

/** Every failure: `code` is a word from status.ts's vocabulary (the JSON-RPC fallback of app.ts carries a number). */
export const ApiErrorBody = z.object({
  error: z.object({ code: z.union([z.string(), z.number()]), message: z.string() }),
});

/** An agent key as the operator sees it: never the key, never its hash. */
/** One agent key as `/api` shows it: its id, the agent it names (`key-<id>` for keys issued before agents had names). */
export const PublicKey = z.object({ id: z.string(), agent: z.string(), created_at: z.string() });

/**
 * One agent of a perimeter: its key, the last use of that key seen by any instance (null: none recorded), and its open
 * sessions on the instance that answers.
 */
export const AgentRow = z.object({
  agent: z.string(),
  key_id: z.string(),
  created_at: z.string(),
  last_used: z.string().nullable(),
  sessions: z.number().int(),
});

/** A perimeter as `/api` shows it: the stored policy, its keys' ids, and the URLs its agents use. */
export const PerimeterView = z.object({
  id: z.string(),
  repo: z.string(),
  tools: z.array(z.string()).optional(),
  read: z.array(z.string()),
  write: z.array(z.string()),
  default_branch: z.string(),
  branches: z.array(z.string()),
  private: z.array(z.string()).optional(),
  allow_protected: z.array(z.string()).optional(),
  allow_secrets: z.boolean().optional(),
  allow_binary: z.boolean().optional(),
  limits: Limits.optional(),
  approval: Approval.optional(),
  pulls: Pulls.optional(),
  origin: PerimeterOrigin.optional(),
  keys: z.array(PublicKey),
  urls: z.array(z.string()),
});
export type PerimeterView = z.infer<typeof PerimeterView>;
const OnePerimeter = z.object({ perimeter: PerimeterView });

/** One working tree as the API answers it. */
export const WorktreeRow = z.object({
  branch: z.string().nullable(),
  path: z.string(),
  head: z.string().nullable(),
  main: z.boolean(),
  locked: z.boolean(),
  prunable: z.boolean(),
  /** True when an agent of this perimeter bound to `branch` gets the workspace tools. */
  workspace_tools: z.boolean(),
});
export type WorktreeRow = z.infer<typeof WorktreeRow>;

/** A proposal list row: the record without the change's content (which `show` gives in full). */
export const ProposalRow = z.object({
  id: z.string(),
  perimeter: z.string(),
  branch: z.string(),
  agent: z.string(),
  kind: z.string(),
  status: ProposalStatus,
  summary: z.string(),
  created_at: z.string(),
  expires_at: z.string(),
  protected_paths: z.array(z.string()),
});
export type ProposalRow = z.infer<typeof ProposalRow>;
const OneProposal = z.object({ proposal: Proposal });
/** One file of a proposal as the page draws it (the same computation: `fileDiffs`), lines capped for /api. */
export const ProposalFileView = z.object({
  path: z.string(),
  from: z.string().optional(),
  change: z.string(),
  added: z.number(),
  removed: z.number(),
  notes: z.array(z.string()),
  flag: z.string().optional(),
  lines: z.array(z.object({ kind: z.enum(['hunk', 'same', 'add', 'del']), text: z.string() })).optional(),
  lines_total: z.number(),
});
export type ProposalFileView = z.infer<typeof ProposalFileView>;
/** `proposal show`: the record and every file as the page shows it. */
const ShownProposal = OneProposal.extend({
  files: z.array(ProposalFileView).optional(),
  /** The page's risk flags, from the same function (`bad`: shown red). */
  flags: z.array(z.object({ label: z.string(), bad: z.boolean() })).optional(),
});

/** One restore point as the operator sees it. */
export const RestoreRow = z.object({
  repo: z.string(),
  id: z.string(),
  /** `ref`: a branch head kept before a push_files write; `tree`: a working-tree point (head, and a stash of paths). */
  kind: z.enum(['ref', 'tree']),
  /** The operation it was taken before (`push_files` for ref points). */
  op: z.string(),
  branch: z.string(),
  /** The proposal it was taken for, when one names it. */
  proposal: z.string().nullable(),
  /** When it was taken (ISO 8601); null when unknown (a ref point with no proposal on record). */
  taken_at: z.string().nullable(),
  /** The branch head it keeps; null when the branch did not exist then (applying it deletes the branch). */
  head: z.string().nullable(),
  /** Paths whose uncommitted working-tree and index state it keeps (the stash); empty for none. */
  stash: z.array(z.string()),
  /** When the retention rule lets it be pruned; null: kept until deleted by hand. */
  kept_until: z.string().nullable(),
});
export type RestoreRow = z.infer<typeof RestoreRow>;
export const RestoreList = z.object({
  restore_points: z.array(RestoreRow),
  retention: z.object({ keep_days: z.number(), rule: z.string() }),
});
export const RestoreApplied = z.object({
  repo: z.string(),
  id: z.string(),
  kind: z.enum(['ref', 'tree']),
  branch: z.string(),
  /** The head the branch is at now (null: the branch was removed, as it did not exist when the point was taken). */
  sha: z.string().nullable(),
  from: z.string().nullable(),
  /** The restore point taken of the state the restore left: `restore apply <undo>` undoes it. */
  undo: z.string(),
});
export type RestoreApplied = z.infer<typeof RestoreApplied>;

/** The audit ledger's state in the operator status. */
export const AuditStatus = z.object({
  status: z.enum(['ok', 'degraded']),
  /** Why the ledger is degraded (lost entries, a failed write, segments held past --audit-keep). */
  warnings: z.array(z.string()).optional(),
  file: z.string(),
  entries: z.number(),
  failures: z.number(),
  queued: z.number(),
  coalesced: z.number(),
  dropped: z.number(),
  /** Entries never written, for any reason; above 0 means degraded. */
  lost: z.number(),
  /** Calls that waited for room in their perimeter's share of the queue (back-pressure), and the longest wait. */
  waited: z.number(),
  max_waited_ms: z.number(),
  /** Group commits and the largest one. */
  batches: z.number(),
  max_batch: z.number(),
  retention: z.object({
    held: z.number(),
    pruned_segments: z.number(),
    last_prune: z
      .object({ at: z.string(), first_seq: z.number(), through_seq: z.number(), segments: z.number() })
      .optional(),
  }),
  last_error: z.string().optional(),
  signed: z.boolean(),
  clear_paths: z.boolean(),
  /** Several instances on PostgreSQL: this ledger's name in the store's copy and how far the copy has it. */
  shipping: z
    .object({
      instance: z.string(),
      /** The store's head for this ledger; null until the store first answered. */
      shipped_seq: z.number().nullable(),
      /** The newest entry durable on this disk; the difference waits to be shipped. */
      local_seq: z.number(),
      shipped: z.number(),
      batches: z.number(),
      /** The store did not answer the last round: entries wait on disk. */
      last_error: z.string().optional(),
      /** The local chain does not continue the store's copy: shipping stopped (degraded). */
      stopped: z.string().optional(),
    })
    .optional(),
});
export type AuditStatus = z.infer<typeof AuditStatus>;

/** One audit event as `GET /api/audit` answers it: the ledger entry (paths hashed unless --audit-clear-paths) and where it lives. */
export const AuditEntryView = z.object({
  /** The ledger it came from: its name in the store's copy (`local` on the file store, one instance). */
  instance: z.string(),
  seq: z.number(),
  ts: z.string(),
  surface: z.string(),
  perimeter: z.string().optional(),
  branch: z.string().optional(),
  tool: z.string(),
  client: z.string().optional(),
  verdict: z.string(),
  result: z.string(),
  bytes: z.number(),
  duration_ms: z.number(),
  commit: z.string().optional(),
  count: z.number().optional(),
  last_ts: z.string().optional(),
  source: z.string().optional(),
  redaction: z.string(),
  paths: z.array(z.string()).optional(),
  hash: z.string(),
});
export type AuditEntryView = z.infer<typeof AuditEntryView>;

/** `GET /api/audit`: the newest matching events of every instance, oldest first, and each instance's shipped head. */
export const AuditAnswer = z.object({
  /** `store`: every instance's copy in the shared store; `ledger`: this instance's own files (the file store). */
  source: z.enum(['store', 'ledger']),
  entries: z.array(AuditEntryView),
  /** True when more events matched than `limit` (narrow with `since`, `until` or a filter). */
  truncated: z.boolean(),
  /** The store's copy: how far each instance's chain has arrived (entries after it still wait on that instance's disk). */
  instances: z.array(
    z.object({ instance: z.string(), shipped_seq: z.number().nullable(), shipped_at: z.string().nullable() }),
  ),
});
export type AuditAnswer = z.infer<typeof AuditAnswer>;

/** The shared state store in the operator status. `silentMs` is absent when the store could not even be asked. */
export const StoreStatus = z.object({
  kind: z.string(),
  health: z.discriminatedUnion('kind', [
    z.object({ kind: z.literal('live') }),
    z.object({ kind: z.literal('silent'), silentMs: z.number().optional() }),
  ]),
  instances: z.array(z.object({ id: z.string(), version: z.string(), startedAt: z.string(), lastSeen: z.string() })),
  error: z.string().optional(),
});
export type StoreStatus = z.infer<typeof StoreStatus>;

/** `GET /api/health`: the operator status. */
export const Health = z.object({
  name: z.literal('git-blinder'),
  version: z.string(),
  uptime_s: z.number(),
  state_dir: z.string().nullable(),
  sessions: z.object({
    open: z.number(),
    /** A session with no request for a minute (and no open stream) is idle until the reaper closes it. */
    active: z.number(),
    idle: z.number(),
    by_perimeter: z.record(z.string(), z.number()),
    /** Open agent sessions per perimeter and agent (issue 23; absent from servers before it). */
    by_agent: z
      .array(
        z.object({
          perimeter: z.string(),
          agent: z.string(),
          sessions: z.number(),
          branches: z.array(z.string()),
          last_seen: z.string(),
        }),
      )
      .optional(),
    streams: z.number(),
    evicted: z.number(),
    limits: z.object({ max: z.number(), perPerimeter: z.number(), perKey: z.number(), root: z.number() }),
  }),
  perimeters: z.array(
    z.object({
      id: z.string(),
      repo: z.string(),
      branches: z.array(z.string()),
      sessions: z.number(),
      /** Per allowlisted branch, the tools an agent's tools/list gives there. */
      tools: z.record(z.string(), z.array(z.string())),
    }),
  ),
  upstreams: z.array(
    z.object({
      kind: z.string(),
      ok: z.boolean(),
      detail: z.string(),
      rateLimit: z.object({ remaining: z.number(), limit: z.number(), resetAt: z.string() }).optional(),
    }),
  ),
  store: StoreStatus.optional(),
  audit: AuditStatus.optional(),
});
export type Health = z.infer<typeof Health>;

const Branches = z.object({ repo: z.string(), branches: z.array(z.object({ name: z.string(), sha: z.string() })) });

/** What the history routes add to the tool's own answer: which perimeter and branch it was read as. */
const AsRead = { perimeter: z.string(), branch: z.string().optional() };

/**
 * The response schema of every `/api` route, keyed `METHOD /path` as the router mounts it (errors: ApiErrorBody).
 * The CLI names a route by its key; the router answers through it.
 */
export const API = {
  'GET /health': Health,
  'GET /perimeters': z.object({ perimeters: z.array(PerimeterView) }),
  'POST /perimeters': OnePerimeter,
  'GET /perimeters/:id': OnePerimeter,
  'DELETE /perimeters/:id': z.object({ deleted: z.string() }),
  'GET /perimeters/:id/branches': z.object({
    default_branch: z.string(),
    branches: z.array(z.string()),
    urls: z.array(z.string()),
  }),
  'POST /perimeters/:id/branches': OnePerimeter,
  'DELETE /perimeters/:id/branches/*name': OnePerimeter,
  'GET /perimeters/:id/keys': z.object({ keys: z.array(PublicKey) }),
  // The key is in this answer and nowhere else: only its hash is stored.
  'POST /perimeters/:id/keys': z.object({
    id: z.string(),
    agent: z.string(),
    key: z.string(),
    urls: z.array(z.string()),
  }),
  // `:keyId` takes a key id or an agent id; the answer names both.
  'DELETE /perimeters/:id/keys/:keyId': z.object({ revoked: z.string(), agent: z.string() }),
  'GET /perimeters/:id/agents': z.object({ agents: z.array(AgentRow) }),
  'GET /perimeters/:id/commits': z.object(AsRead).extend(CommitPage.shape),
  'GET /perimeters/:id/commits/:sha': z.object(AsRead).extend(CommitOutput.shape),
  'GET /perimeters/:id/worktrees': z.object({ worktrees: z.array(WorktreeRow) }),
  'POST /perimeters/:id/worktrees': z.object({ worktree: WorktreeRow }),
  'GET /repos': z.object({
    repos: z.array(z.object({ name: z.string(), defaultBranch: z.string(), private: z.boolean().optional() })),
  }),
  'GET /repos/:owner/:repo/branches': Branches,
  'GET /branches': Branches,
  'GET /proposals': z.object({ proposals: z.array(ProposalRow) }),
  'GET /proposals/:id': ShownProposal,
  'POST /proposals/:id/approve': OneProposal,
  'POST /proposals/:id/reject': OneProposal,
  'GET /restore': RestoreList,
  'GET /audit': AuditAnswer,
  'POST /restore/:id/apply': RestoreApplied,
} as const;

export type ApiRoute = keyof typeof API;
/** The body a route answers with. */
export type ApiBody<R extends ApiRoute> = z.infer<(typeof API)[R]>;
/** The method of a route key. */
export type ApiMethod<R extends ApiRoute> = R extends `${infer M} ${string}` ? M : never;

// The same table seen route by route: checked once here, property by property, so a generic lookup keeps its type
// without a cast (an indexed access on a mapped type stays tied to its key).
const BY_ROUTE: { readonly [R in ApiRoute]: z.ZodType<ApiBody<R>> } = API;

/** The response schema of one route, typed by its key. */
export function schemaOf<R extends ApiRoute>(route: R): z.ZodType<ApiBody<R>> {
  return BY_ROUTE[route];
}
