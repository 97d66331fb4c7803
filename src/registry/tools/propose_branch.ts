import * as z from 'zod/v4';
import { defineProposeTool, proposeShape } from '../workspace-propose.js';

const input = z.strictObject({
  name: z.string().min(1).max(255).describe('The new branch.'),
  from: z.string().min(1).max(255).describe('An allowlisted branch or a full commit id.'),
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
