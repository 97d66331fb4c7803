import * as z from 'zod/v4';
import { MAX_WS_REV } from '../../core/index.js';
import { defineProposeTool, proposeShape } from '../workspace-propose.js';

const input = z.strictObject({
  from: z.string().min(1).max(MAX_WS_REV).describe('An allowlisted branch.'),
  ...proposeShape,
});

/** propose_merge: merge an allowlisted branch into the bound one, once a person approves. */
export const proposeMerge = defineProposeTool<z.infer<typeof input>>({
  name: 'propose_merge',
  description: 'Propose merging an allowlisted branch into this one; applied after a person approves.',
  title: 'Propose a merge',
  destructive: false,
  input,
  steps: (a) => [{ kind: 'merge', from: a.from }],
  change: (a, fingerprint) => ({ kind: 'merge', from: a.from, fingerprint }),
});
