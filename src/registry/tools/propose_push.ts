import * as z from 'zod/v4';
import { defineProposeTool, proposeShape } from '../workspace-propose.js';

const input = z.strictObject({ ...proposeShape });

/** propose_push: push the bound branch to its upstream (never forced), once a person approves. */
export const proposePush = defineProposeTool<z.infer<typeof input>>({
  name: 'propose_push',
  description: 'Propose pushing this branch to its upstream (never forced); after approval.',
  title: 'Propose a push',
  destructive: false,
  input,
  steps: () => [{ kind: 'push' }],
  change: (_a, fingerprint) => ({ kind: 'push', fingerprint }),
});
