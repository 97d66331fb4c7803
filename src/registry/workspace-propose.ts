// What the propose_* tools share: preview the operation on the bound branch's working tree, judge every path it
// would touch and every branch it names on the perimeter, scan the content it would commit, and only then hold it as
// a pending proposal. A workspace proposal always waits for a person; nothing here writes to the tree.
import * as z from 'zod/v4';
import {
  compressedRefusal,
  describeStep,
  normalizePath,
  patchPaths,
  proposeTimePaths,
  ProposalStatus,
  scanBytesForSecrets,
  secretsRefusal,
  stepRefRefusal,
  workspacePathRefusal,
  type AgentBinding,
  type ProposalChange,
  type ProposalFacts,
  type WorkspaceStep,
} from '../core/index.js';
import type { UpResult } from '../upstream/types.js';
import type { WorkTreeWriter, WritePreview } from '../workspace/writes.js';
import { writeOpOf } from './workspace-ops.js';
import { judgeRevisions, revisionNotFound } from './workspace-revisions.js';
import { field } from './render.js';
import { defineTool, type AnyTool, type DraftOutcome, type ToolContext, type ToolOutcome } from './tool.js';

/** Longest `reason` an agent may give the approver. */
export const MAX_WS_REASON = 2_000;

/** The fields every propose_* tool takes besides its own. */
export const proposeShape = {
  reason: z.string().min(1).max(MAX_WS_REASON).describe('Why, for the person who approves.'),
  idempotency_key: z
    .string()
    .min(1)
    .max(128)
    .optional()
    .describe('A retry with the same key returns the same proposal.'),
};

/** The answer of every propose_* tool. */
export const ProposeOut = z.object({
  branch: z.string(),
  proposal_id: z.string(),
  status: ProposalStatus,
  summary: z.string(),
});
export type ProposeOut = z.infer<typeof ProposeOut>;

/** What a propose_* tool's own `run` answers: only the operator surface reaches it, and it is always refused. */
export type Proposed = ProposeOut | { readonly refused: string };

/** The largest file whose bytes are scanned for credentials before a commit is proposed (and again at approval). */
export const SCAN_MAX_BYTES = 5 * 1024 * 1024;

const missing = {
  ok: false as const,
  error: { code: 'not_found' as const, message: 'the branch is not checked out in a working tree' },
};
const refuse = (refused: string) => ({ ok: true as const, value: { refused } });

/** The writer of the bound branch's working tree, when there is one. */
async function writerOf(ctx: ToolContext): Promise<UpResult<WorkTreeWriter>> {
  if (ctx.writers === undefined) return missing;
  const w = await ctx.writers.open(ctx.target.repo, ctx.target.ref);
  if (!w.ok) return { ok: false, error: { code: 'unavailable', message: w.error.message } };
  return w.value === undefined ? missing : { ok: true, value: w.value };
}

/** What judging one step found: its preview, paths left to the approval, branches it would allowlist. */
interface Judged {
  readonly preview: WritePreview;
  readonly refused?: string;
  readonly deferred: readonly string[];
  readonly sources: readonly BranchSource[];
}
type BranchSource = NonNullable<ProposalFacts['branch_sources']>[number];

/**
 * Judges one step on the binding: the revisions it names (the read rule, before git sees them), a fresh preview's
 * paths (those the agent named, and of those git derived only the readable ones), content it would commit.
 */
async function judge(
  tool: string,
  step: WorkspaceStep,
  w: WorkTreeWriter,
  b: AgentBinding,
  ctx: ToolContext,
): Promise<UpResult<Judged>> {
  const refused = (why: string, preview: WritePreview = emptyPreview(step)) => ({
    ok: true as const,
    value: { preview, refused: why, deferred: [], sources: [] },
  });
  const refRefusal = stepRefRefusal(tool, step, b.branches);
  if (refRefusal !== undefined) return refused(refRefusal);
  const revs = await judgeRevisions(revisionReader(ctx, b), step);
  if (!revs.ok) return revs;
  if ('unreadable' in revs.value) return refused(revisionNotFound(tool, revs.value.unreadable));
  const via = revs.value.via;
  const preview = await w.preview(writeOpOf(step, 'preview', (m) => m, ctx.author));
  if (!preview.ok)
    return {
      ok: false,
      error: { code: preview.error.code === 'not_found' ? 'not_found' : 'invalid', message: preview.error.message },
    };
  const named = step.kind === 'patch' ? patchPaths(step.patch) : undefined;
  if (named !== undefined && !named.ok)
    return refused(`${tool} refused: ${named.message} Nothing was proposed.`, preview.value);
  const { judged, deferred } = proposeTimePaths(step, preview.value.paths, b.scope);
  const paths = [...new Set([...judged, ...(named?.ok ? named.value.paths : [])])];
  const pathRefusal = workspacePathRefusal(tool, paths, b);
  if (pathRefusal !== undefined) return refused(pathRefusal, preview.value);
  if (preview.value.push?.kind === 'none')
    return refused(`${tool} refused: ${preview.value.push.reason} Nothing was proposed.`, preview.value);
  const secrets =
    b.allowSecrets || (step.kind !== 'commit' && step.kind !== 'patch') ? undefined : await scan(step, w, b);
  if (secrets !== undefined && !secrets.ok) return secrets;
  if (secrets?.value !== undefined) return refused(`${tool} refused: ${secrets.value}`, preview.value);
  const sources =
    step.kind === 'branch' ? [{ branch: step.name, from: step.from, reached_by: via.get(step.from) ?? step.from }] : [];
  return { ok: true, value: { preview: preview.value, deferred, sources } };
}

/** The read rule's view of the binding: its branches, the bound one first. */
const revisionReader = (ctx: ToolContext, b: AgentBinding) => ({
  upstream: ctx.upstream,
  repo: ctx.target.repo,
  scope: b.scope,
  branches: [b.branch, ...b.branches.filter((x) => x !== b.branch)],
});

const emptyPreview = (s: WorkspaceStep): WritePreview => ({
  op: s.kind,
  paths: [],
  exact: true,
  conflicts: [],
  base: '',
  fingerprint: '',
});

/**
 * The credential scan of what the step brings in: a patch's text, a commit's files as git would store them (a link's
 * target text, never the file it points at). Files the agent cannot read are left to the approval, which scans them
 * again in the operator's view: a refusal here never reports on bytes the agent may not read.
 */
async function scan(step: WorkspaceStep, w: WorkTreeWriter, b: AgentBinding): Promise<UpResult<string | undefined>> {
  const files: { path: string; bytes: Uint8Array }[] = [];
  if (step.kind === 'patch') files.push({ path: '(patch)', bytes: new TextEncoder().encode(step.patch) });
  if (step.kind === 'commit') {
    const readable = step.paths.flatMap((p) => {
      const n = normalizePath(p);
      return n.ok && b.scope.canRead(n.value) ? [n.value] : [];
    });
    const stored = readable.length === 0 ? { ok: true as const, value: [] } : await w.stored(readable, SCAN_MAX_BYTES);
    if (!stored.ok)
      return {
        ok: false,
        error: { code: stored.error.code === 'not_found' ? 'not_found' : 'invalid', message: stored.error.message },
      };
    for (const c of stored.value) {
      if (c.kind === 'file') files.push({ path: c.path, bytes: c.bytes });
      if (c.kind === 'symlink') files.push({ path: c.path, bytes: c.target });
    }
  }
  if (files.length === 0) return { ok: true, value: undefined };
  const found = scanBytesForSecrets(files, { allowCompressed: b.allowBinary });
  if (found.compressed.length > 0) return { ok: true, value: compressedRefusal(found.compressed) };
  return { ok: true, value: found.findings.length > 0 ? secretsRefusal(found.findings) : undefined };
}

/**
 * Previews and judges `steps` (one, or a plan): the draft `invoke` holds for approval, or the refusal that stops it.
 * Nothing here makes the proposal (one path for every kind: `invoke`'s propose outcome).
 */
export async function draftOf(
  tool: string,
  steps: readonly WorkspaceStep[],
  asChange: (fingerprint: string) => ProposalChange,
  a: { reason: string; idempotency_key?: string | undefined },
  ctx: ToolContext,
): Promise<DraftOutcome> {
  const b = ctx.binding;
  if (b.surface !== 'agent') return { kind: 'refused', message: agentOnly(tool) };
  const w = await writerOf(ctx);
  if (!w.ok) return { kind: 'error', error: w.error };
  let first: WritePreview | undefined;
  const paths: string[] = [];
  const outside: string[] = [];
  const sources: BranchSource[] = [];
  let push: ProposalFacts['push'];
  for (const [i, step] of steps.entries()) {
    const judged = await judge(tool, step, w.value, b, ctx);
    if (!judged.ok) return { kind: 'error', error: judged.error };
    const at = steps.length > 1 ? `step ${i + 1} (${describeStep(step)}): ` : '';
    if (judged.value.refused !== undefined) return { kind: 'refused', message: `${at}${judged.value.refused}` };
    first ??= judged.value.preview;
    for (const p of judged.value.preview.paths) if (!paths.includes(p)) paths.push(p);
    for (const p of judged.value.deferred) if (!outside.includes(p)) outside.push(p);
    sources.push(...judged.value.sources);
    const plan = judged.value.preview.push;
    if (push === undefined && plan?.kind === 'target')
      push = { remote: plan.remote, branch: plan.branch, commits: [...plan.commits] };
  }
  if (first === undefined) return { kind: 'refused', message: `${tool} refused: nothing to do.` };
  return {
    kind: 'draft',
    draft: {
      base: first.base,
      change: asChange(first.fingerprint),
      facts: {
        paths,
        protected_paths: paths.filter(b.isProtected),
        ...(outside.length === 0 ? {} : { outside_window: outside }),
        ...(sources.length === 0 ? {} : { branch_sources: sources }),
        ...(push === undefined ? {} : { push }),
      },
      agentReason: a.reason,
      ...(a.idempotency_key === undefined ? {} : { idempotencyKey: a.idempotency_key }),
    },
  };
}

const agentOnly = (tool: string) => `${tool} is an agent tool: the operator writes working trees directly.`;

/** The filter every propose_* tool shares. */
export const proposeFilter = (r: Proposed): ToolOutcome<ProposeOut> =>
  'refused' in r ? { kind: 'refused', message: r.refused } : { kind: 'ok', value: r };

/** The text every propose_* tool answers. */
export const renderProposed = (o: ProposeOut): string =>
  `proposal ${o.proposal_id} ${o.status} on ${field(o.branch)}: ${field(o.summary)}\n`;

/** Not found: the one message for a branch without a working tree. */
export const proposeNotFound = (): string => 'Not found: the bound branch is not checked out in a working tree.';

/** What one propose_* tool declares; the rest (output, filter, exposure, render) is the same for all of them. */
export interface ProposeSpec<A extends { reason: string; idempotency_key?: string | undefined }> {
  readonly name: string;
  readonly description: string;
  readonly title: string;
  readonly destructive: boolean;
  readonly input: z.ZodType<A>;
  /** Paths named in the arguments (judged by the policy before anything runs). */
  readonly paths?: (a: A) => readonly string[];
  /** The steps and the stored change of the arguments. */
  readonly steps: (a: A) => readonly WorkspaceStep[];
  readonly change: (a: A, fingerprint: string) => ProposalChange;
}

/** A propose_* tool: listed only where the bound branch is checked out; never writes, always waits for a person. */
export function defineProposeTool<A extends { reason: string; idempotency_key?: string | undefined }>(
  s: ProposeSpec<A>,
): AnyTool {
  return defineTool<A, Proposed, ProposeOut>({
    name: s.name,
    access: 'write',
    surfaces: ['agent'],
    requires: 'worktree',
    pathMode: 'all',
    description: s.description,
    annotations: {
      title: s.title,
      readOnlyHint: false,
      destructiveHint: s.destructive,
      idempotentHint: false,
      openWorldHint: false,
    },
    agentInput: s.input,
    rootInput: s.input,
    output: ProposeOut,
    paths: (a) => (s.paths?.(a) ?? []).map((path) => ({ path, role: 'write' as const })),
    rootTarget: () => ({ repo: '', ref: '' }),
    // On an agent binding `invoke` always holds the call (proposable.required); run is what the root surface gets.
    run: async () => refuse(agentOnly(s.name)),
    proposable: {
      required: () => true,
      draft: (a, ctx) => draftOf(s.name, s.steps(a), (fp) => s.change(a, fp), a, ctx),
    },
    filter: proposeFilter,
    notFound: proposeNotFound,
    render: renderProposed,
  });
}
