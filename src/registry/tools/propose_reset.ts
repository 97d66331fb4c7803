import * as z from 'zod/v4';
import { MAX_WS_REV } from '../../core/index.js';
import { defineProposeTool, proposeShape } from '../workspace-propose.js';

const input = z.strictObject({
  mode: z.enum(['soft', 'mixed', 'hard']),
  to: z.string().min(1).max(MAX_WS_REV).describe('An allowlisted branch or a full commit id.'),
  ...proposeShape,
});

/** propose_reset: move the bound branch to a commit (a restore point keeps what is lost), once a person approves. */
export const proposeReset = defineProposeTool<z.infer<typeof input>>({
  name: 'propose_reset',
  description: 'Propose resetting this branch to a commit (kept in a restore point); after approval.',
  title: 'Propose a reset',
  destructive: true,
  input,
  steps: (a) => [{ kind: 'reset', mode: a.mode, to: a.to }],
  change: (a, fingerprint) => ({ kind: 'reset', mode: a.mode, to: a.to, fingerprint }),
});
