// Workspace proposals: the working-tree write operations an agent may ask a person to approve. Each change carries the
// preview fingerprint it was judged on, so the hash an approval binds to covers the exact tree state the person saw.
import * as z from 'zod/v4';

/** The longest plan an agent may propose (steps run in order and stop at the first failure). */
export const MAX_PLAN_STEPS = 10;

const Fingerprint = { fingerprint: z.string().min(1) };

// Every field an agent supplies is capped here, once: the single-step tools and a plan's steps share these schemas,
// so a plan can carry nothing a single call could not (issue 19: a plan's patch step had no cap).
/** Longest commit message a proposal may carry. */
export const MAX_WS_MESSAGE = 10_000;
/** Most paths one commit or discard step names. */
export const MAX_WS_PATHS = 100;
/** Longest path an agent may name. */
export const MAX_WS_PATH = 4096;
/** Largest patch (UTF-16 units, as zod counts) one proposal carries, all of a plan's patch steps together. */
export const MAX_WS_PATCH = 1_000_000;
/** Longest revision or branch name. */
export const MAX_WS_REV = 255;

const Rev = z.string().min(1).max(MAX_WS_REV);
const Paths = z.array(z.string().max(MAX_WS_PATH)).min(1).max(MAX_WS_PATHS);
const Message = z.string().max(MAX_WS_MESSAGE);
const PatchText = z.string().min(1).max(MAX_WS_PATCH);

const CommitStep = z.strictObject({ kind: z.literal('commit'), message: Message, paths: Paths });
const PatchStep = z.strictObject({ kind: z.literal('patch'), patch: PatchText });
const DiscardStep = z.strictObject({ kind: z.literal('discard'), paths: Paths });
const MergeStep = z.strictObject({ kind: z.literal('merge'), from: Rev });
const RebaseStep = z.strictObject({ kind: z.literal('rebase'), onto: Rev });
const ResetStep = z.strictObject({ kind: z.literal('reset'), mode: z.enum(['soft', 'mixed', 'hard']), to: Rev });
const BranchStep = z.strictObject({ kind: z.literal('branch'), name: Rev, from: Rev });
const PushStep = z.strictObject({ kind: z.literal('push') });

/** One workspace operation as the agent asked for it (no fingerprint: a plan's later steps are previewed on apply). */
export const WorkspaceStep = z.discriminatedUnion('kind', [
  CommitStep,
  PatchStep,
  DiscardStep,
  MergeStep,
  RebaseStep,
  ResetStep,
  BranchStep,
  PushStep,
]);
export type WorkspaceStep = z.infer<typeof WorkspaceStep>;
export type WorkspaceStepKind = WorkspaceStep['kind'];

/** The patch text of a plan's steps together. */
const planPatchBytes = (steps: readonly WorkspaceStep[]): number =>
  steps.reduce((n, s) => n + (s.kind === 'patch' ? s.patch.length : 0), 0);

/** A plan's steps: 1–10, carrying no more patch text together than one patch may. */
export const PlanSteps = z
  .array(WorkspaceStep)
  .min(1)
  .max(MAX_PLAN_STEPS)
  .refine((steps) => planPatchBytes(steps) <= MAX_WS_PATCH, {
    message: `The patches of a plan are at most ${MAX_WS_PATCH} characters together.`,
  });

/** A plan: 1–10 steps; its fingerprint is the first step's preview (later steps are previewed when they run). */
const PlanChange = z.strictObject({ kind: z.literal('plan'), steps: PlanSteps, ...Fingerprint });

/** The workspace change kinds of the proposal union: each step with the fingerprint of its preview, and a plan. */
export const WORKSPACE_CHANGES = [
  CommitStep.extend(Fingerprint),
  PatchStep.extend(Fingerprint),
  DiscardStep.extend(Fingerprint),
  MergeStep.extend(Fingerprint),
  RebaseStep.extend(Fingerprint),
  ResetStep.extend(Fingerprint),
  BranchStep.extend(Fingerprint),
  PushStep.extend(Fingerprint),
  PlanChange,
] as const;

/** The fields of a step that the hash must cover, in a fixed order. */
export function stepParts(s: WorkspaceStep): unknown[] {
  switch (s.kind) {
    case 'commit':
      return [s.kind, s.message, s.paths];
    case 'patch':
      return [s.kind, s.patch];
    case 'discard':
      return [s.kind, s.paths];
    case 'merge':
      return [s.kind, s.from];
    case 'rebase':
      return [s.kind, s.onto];
    case 'reset':
      return [s.kind, s.mode, s.to];
    case 'branch':
      return [s.kind, s.name, s.from];
    case 'push':
      return [s.kind];
    default:
      return neverStep(s);
  }
}

/** One line about a step, from what the agent asked. */
export function describeStep(s: WorkspaceStep): string {
  switch (s.kind) {
    case 'commit':
      return `commit ${s.paths.length} path(s)`;
    case 'patch':
      return 'apply a patch';
    case 'discard':
      return `discard changes to ${s.paths.length} path(s)`;
    case 'merge':
      return `merge ${s.from}`;
    case 'rebase':
      return `rebase onto ${s.onto}`;
    case 'reset':
      return `reset --${s.mode} to ${s.to}`;
    case 'branch':
      return `create branch ${s.name} from ${s.from}`;
    case 'push':
      return 'push to its upstream';
    default:
      return neverStep(s);
  }
}

function neverStep(s: never): never {
  throw new Error(`unexpected workspace step: ${JSON.stringify(s)}`);
}
