import * as z from 'zod/v4';
import { MAX_WS_MESSAGE, MAX_WS_PATHS } from '../../core/index.js';
import { Path } from '../schemas.js';
import { defineProposeTool, proposeShape } from '../workspace-propose.js';

const input = z.strictObject({
  message: z.string().min(1).max(MAX_WS_MESSAGE),
  paths: z.array(Path).min(1).max(MAX_WS_PATHS).describe('Exactly the files to commit, as they are on disk.'),
  ...proposeShape,
});

/** propose_commit: commit exactly the listed files of the working tree, once a person approves. */
export const proposeCommit = defineProposeTool<z.infer<typeof input>>({
  name: 'propose_commit',
  description: 'Propose committing exactly these working-tree files; applied after a person approves.',
  title: 'Propose a commit',
  destructive: false,
  input,
  paths: (a) => a.paths,
  steps: (a) => [{ kind: 'commit', message: a.message, paths: a.paths }],
  change: (a, fingerprint) => ({ kind: 'commit', message: a.message, paths: a.paths, fingerprint }),
});
