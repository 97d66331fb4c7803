import * as z from 'zod/v4';
import { MAX_WS_REV } from '../../core/index.js';
import { defineProposeTool, proposeShape } from '../workspace-propose.js';

const input = z.strictObject({
  onto: z.string().min(1).max(MAX_WS_REV).describe('An allowlisted branch.'),
  ...proposeShape,
});

/** propose_rebase: rebase the bound branch onto an allowlisted one (never interactive), once a person approves. */
export const proposeRebase = defineProposeTool<z.infer<typeof input>>({
  name: 'propose_rebase',
  description: 'Propose rebasing this branch onto an allowlisted branch; applied after a person approves.',
  title: 'Propose a rebase',
  destructive: true,
  input,
  steps: (a) => [{ kind: 'rebase', onto: a.onto }],
  change: (a, fingerprint) => ({ kind: 'rebase', onto: a.onto, fingerprint }),
});
