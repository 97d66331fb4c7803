import * as z from 'zod/v4';
import { PlanSteps } from '../../core/index.js';
import { defineProposeTool, proposeShape } from '../workspace-propose.js';

const input = z.strictObject({
  steps: PlanSteps.describe('Workspace steps ({kind:"commit",…}) run in order.'),
  ...proposeShape,
});

/** propose_plan: up to 10 workspace steps approved together, run in order, stopping at the first failure. */
export const proposePlan = defineProposeTool<z.infer<typeof input>>({
  name: 'propose_plan',
  description: 'Propose 1-10 workspace steps run in order after approval; stops at the first failure.',
  title: 'Propose a plan',
  destructive: true,
  input,
  paths: (a) => a.steps.flatMap((s) => (s.kind === 'commit' || s.kind === 'discard' ? s.paths : [])),
  steps: (a) => a.steps,
  change: (a, fingerprint) => ({ kind: 'plan', steps: a.steps, fingerprint }),
});
