import type * as z from 'zod/v4';
import type {
  AgentBinding,
  Binding,
  Proposal,
  ProposalChange,
  ProposalFacts,
  Scope,
  Target,
  ToolPolicy,
} from '../core/index.js';
import type { UpResult, Upstream, UpstreamError } from '../upstream/types.js';
import type { Workspace } from '../workspace/types.js';
import type { WorkTreeWriters } from '../workspace/writes.js';
import type { PresenceStore } from '../state/types.js';
import type { AgentProposals } from './proposals.js';
import { publish, type PublishedSchema } from './publish.js';
import type { Fence } from './render.js';

/** Hints for clients; set explicitly on every tool because the protocol defaults are the pessimistic ones. */
export interface Annotations {
  readonly title: string;
  readonly readOnlyHint: boolean;
  readonly destructiveHint: boolean;
  readonly idempotentHint: boolean;
  readonly openWorldHint: boolean;
}

/** Structured log sink; fields never carry secrets. */
export type Log = (level: 'debug' | 'info' | 'warn' | 'error', msg: string, fields?: Record<string, unknown>) => void;

/** Seals and opens opaque tokens (change cursors); `open` answers undefined for anything it did not seal. */
export interface CursorSeal {
  seal(plain: string): string;
  open(token: string): string | undefined;
  /** Seals a result id: deterministic (the same plaintext, the same id), never interchangeable with a cursor. */
  sealId(plain: string): string;
  /** Opens what sealId made; undefined for anything else (a cursor, a forged or edited id). */
  openId(token: string): string | undefined;
}

/** What a tool's run and filter receive. Everything is passed in: no module state. */
export interface ToolContext {
  readonly upstream: Upstream;
  readonly binding: Binding;
  readonly scope: Scope;
  /** Where the call lands: forced by the binding for agents. */
  readonly target: Target;
  /** Paths the policy hid (multi-path reads answer them as missing). */
  readonly hidden: ReadonlySet<string>;
  /** Author recorded on writes: `agentAuthor(agent, perimeter)` for agents, the operator's on root. */
  readonly author: { readonly name: string; readonly email: string };
  /** The agent id of the key the call came with (absent on the operator surface): the only identity a tool trusts. */
  readonly agent?: string;
  /** What the MCP client declared about itself: a label beside `agent`, never authorization. */
  readonly client?: string;
  readonly log: Log;
  /** Seals change cursors under the server's key; absent where the composition gave none (changes_since refuses). */
  readonly cursors?: CursorSeal;
  /** Working trees of local repositories; absent where the composition gave none (workspace tools answer not found). */
  readonly workspace?: Workspace;
  /** The agent's own proposals (status, cancel); absent where the composition has no proposal service. */
  readonly proposals?: AgentProposals;
  /** Working-tree writers (the propose_* tools preview with them; only an approval applies). */
  readonly writers?: WorkTreeWriters;
  /** Other agents' recent activity and leases (issue 23 §2); absent = nobody else is ever reported, no lease taken. */
  readonly presence?: PresenceStore;
}

/** The agent-facing result of a tool, before MCP framing. */
export type ToolOutcome<O> =
  | { kind: 'ok'; value: O; commit?: string }
  /** Missing or invisible: the message is built from the arguments only, so both read the same. */
  | { kind: 'not_found' }
  | { kind: 'error'; error: UpstreamError }
  /** Refused on content, after the policy allowed the call (binary content, a credential in a write, a limit). */
  | { kind: 'refused'; message: string };

/** What a write held for approval records, built from the (already allowed) arguments alone. */
export interface ProposalDraft {
  readonly change: ProposalChange;
  readonly facts: ProposalFacts;
  readonly agentReason?: string;
  readonly idempotencyKey?: string;
  /** The head the change was judged against (a working-tree preview's); absent = the bound branch's head, read then. */
  readonly base?: string;
  /**
   * The tool's own answer once the proposal is stored (a local PR answers as the PR it opened); absent = the
   * proposal's id, status and summary.
   */
  readonly answer?: (p: Proposal) => unknown;
}

/** A tool's draft of a proposal, or why there is none (its own judgement of the content, or an upstream failure). */
export type DraftOutcome =
  | { readonly kind: 'draft'; readonly draft: ProposalDraft }
  | { readonly kind: 'refused'; readonly message: string }
  | { readonly kind: 'error'; readonly error: UpstreamError }
  /** Nothing to propose: the tool answers this value (create_pull_request on a branch whose PR is already open). */
  | { readonly kind: 'answer'; readonly value: unknown };

/**
 * How a write becomes a proposal: the only way one is made is `invoke` holding the tool's draft (push_files in
 * approval mode, and every propose_* tool, which always waits for a person).
 */
export interface Proposable<A> {
  /** True when this binding's perimeter holds this tool's writes for approval. */
  required(binding: AgentBinding): boolean;
  /** The change to hold, from the allowed arguments (and, for the working tree, a preview judged on the binding). */
  draft(args: A, ctx: ToolContext): Promise<DraftOutcome>;
}

/** One tool, declared as a value: schema, policy, upstream call and output filter. */
export interface ToolDef<A, R, O> extends ToolPolicy<A> {
  readonly description: string;
  readonly annotations: Annotations;
  /** Arguments on an agent surface: no repo, ref or branch (the binding forces them). */
  readonly agentInput: z.ZodType<A>;
  /** Arguments on the operator surface: the agent's plus repo and ref. */
  readonly rootInput: z.ZodType<A>;
  /**
   * Arguments on an agent surface whose branch is checked out (working-tree options such as get_file's `source`);
   * absent = the agent schema. Other bindings never see the options, so they cost their tools/list nothing.
   */
  readonly worktreeInput?: z.ZodType<A>;
  readonly output: z.ZodType<O>;
  /** Checks on the arguments' content that need no upstream; a message refuses the call before anything is sent. */
  guard?(args: A, ctx: ToolContext): string | undefined;
  /**
   * Turns sealed arguments into the ones the policy judges, before `decide` (fetch's id into the path it stands
   * for). What it returns must be a function of the arguments and the binding only: an id that does not open
   * simply names no path.
   */
  resolve?(args: A, binding: Binding, cursors: CursorSeal | undefined): A;
  /** The upstream call(s). */
  run(args: A, ctx: ToolContext): Promise<UpResult<R>>;
  /** Cuts the upstream answer to what the binding may see. */
  filter(raw: R, args: A, ctx: ToolContext): ToolOutcome<O>;
  /** The not-found message, from the arguments alone. */
  notFound(args: A): string;
  /** Present on writes that a perimeter may hold for approval. */
  readonly proposable?: Proposable<A>;
  /**
   * True when the answer on an agent binding is a function of the commit the bound branch names, the arguments and
   * the binding alone (no working tree, clock, cursor key or other state): invoke may then run the tool at that
   * commit's id and reuse the answer for the same binding and commit (src/mcp/answer-cache.ts).
   */
  readonly pinned?: true;
  /**
   * The text block a model reads: a compact rendering of the filtered value (structuredContent keeps the JSON),
   * never larger than raw git's output for the same call. A function of the value alone, so it shows nothing more;
   * text written by people or agents goes inside `untrusted(fence, …)` (the fence is random per answer).
   */
  render(value: O, fence: Fence): string;
}

/** A tool with its types erased, as the registry stores it. Arguments are validated by the schemas first. */
export interface AnyTool extends ToolPolicy<unknown> {
  readonly description: string;
  readonly annotations: Annotations;
  readonly agentInput: z.ZodType;
  readonly rootInput: z.ZodType;
  readonly worktreeInput?: z.ZodType;
  readonly output: z.ZodType;
  guard?(args: unknown, ctx: ToolContext): string | undefined;
  resolve?(args: unknown, binding: Binding, cursors: CursorSeal | undefined): unknown;
  run(args: unknown, ctx: ToolContext): Promise<UpResult<unknown>>;
  filter(raw: unknown, args: unknown, ctx: ToolContext): ToolOutcome<unknown>;
  notFound(args: unknown): string;
  readonly proposable?: Proposable<unknown>;
  readonly pinned?: true;
  render(value: unknown, fence: Fence): string;
  /** The schemas tools/list shows, compact and converted once (validation is still the zod schemas'). */
  readonly published: {
    readonly agentInput: PublishedSchema;
    readonly rootInput: PublishedSchema;
    readonly output: PublishedSchema;
    readonly worktreeInput?: PublishedSchema;
  };
}

/** Declares a tool. The erasure is sound because the MCP layer only calls it with schema-validated arguments. */
export function defineTool<A, R, O>(def: ToolDef<A, R, O>): AnyTool {
  const published = {
    agentInput: publish(def.agentInput, 'input'),
    rootInput: publish(def.rootInput, 'input'),
    output: publish(def.output, 'output'),
    ...(def.worktreeInput ? { worktreeInput: publish(def.worktreeInput, 'input') } : {}),
  };
  return { ...(def as unknown as Omit<AnyTool, 'published'>), published };
}
