import * as z from 'zod/v4';
import { MAX_WS_PATHS } from '../../core/index.js';
import { Path } from '../schemas.js';
import { defineProposeTool, proposeShape } from '../workspace-propose.js';

const input = z.strictObject({ paths: z.array(Path).min(1).max(MAX_WS_PATHS), ...proposeShape });

/** propose_discard: throw away local changes to these paths (a restore point keeps them), once a person approves. */
export const proposeDiscard = defineProposeTool<z.infer<typeof input>>({
  name: 'propose_discard',
  description: 'Propose discarding local changes to these paths (kept in a restore point); after approval.',
  title: 'Propose a discard',
  destructive: true,
  input,
  paths: (a) => a.paths,
  steps: (a) => [{ kind: 'discard', paths: a.paths }],
  change: (a, fingerprint) => ({ kind: 'discard', paths: a.paths, fingerprint }),
});
