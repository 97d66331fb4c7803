import * as z from 'zod/v4';
import { MAX_WS_REV } from '../../core/index.js';
import { defineProposeTool, proposeShape } from '../workspace-propose.js';

const input = z.strictObject({
  name: z.string().min(1).max(MAX_WS_REV).describe('The new branch.'),
  from: z.string().min(1).max(MAX_WS_REV).describe('An allowlisted branch or a full commit id.'),
  ...proposeShape,
});

/** propose_branch: create a branch (approval also allowlists it on this perimeter). */
export const proposeBranch = defineProposeTool<z.infer<typeof input>>({
  name: 'propose_branch',
  description: 'Propose creating a branch; approving it also adds it to this perimeter.',
  title: 'Propose a branch',
  destructive: false,
  input,
  steps: (a) => [{ kind: 'branch', name: a.name, from: a.from }],
  change: (a, fingerprint) => ({ kind: 'branch', name: a.name, from: a.from, fingerprint }),
});
