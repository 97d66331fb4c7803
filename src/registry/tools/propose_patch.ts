import * as z from 'zod/v4';
import { MAX_WS_PATCH } from '../../core/index.js';
import { defineProposeTool, proposeShape } from '../workspace-propose.js';

const input = z.strictObject({
  patch: z.string().min(1).max(MAX_WS_PATCH).describe('A git-format unified diff.'),
  ...proposeShape,
});

/** propose_patch: apply a unified diff to the working tree, once a person approves. */
export const proposePatch = defineProposeTool<z.infer<typeof input>>({
  name: 'propose_patch',
  description: 'Propose applying a git diff to the working tree; applied after a person approves.',
  title: 'Propose a patch',
  destructive: false,
  input,
  steps: (a) => [{ kind: 'patch', patch: a.patch }],
  change: (a, fingerprint) => ({ kind: 'patch', patch: a.patch, fingerprint }),
});
