import * as z from 'zod/v4';
import type { BranchInfo } from '../../upstream/types.js';
import { Repo } from '../schemas.js';
import { field } from '../render.js';
import { defineTool } from '../tool.js';

type Args = { repo: string };
const Output = z.object({ branches: z.array(z.object({ name: z.string(), sha: z.string() })) });
type Output = z.infer<typeof Output>;
const input = z.strictObject({ repo: Repo });

export const listBranches = defineTool<Args, readonly BranchInfo[], Output>({
  name: 'list_branches',
  access: 'read',
  // Branch discovery is the operator's: agents are bound to a branch by their URL.
  surfaces: ['root'],
  pathMode: 'all',
  description: 'List the branches of a repository (operator surface only).',
  annotations: {
    title: 'List branches',
    readOnlyHint: true,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  },
  agentInput: input,
  rootInput: input,
  output: Output,
  paths: () => [],
  rootTarget: (a) => ({ repo: a.repo, ref: 'HEAD' }),
  run: (a, ctx) => ctx.upstream.listBranches(a.repo),
  filter: (branches) => ({ kind: 'ok', value: { branches: branches.map((b) => ({ name: b.name, sha: b.sha })) } }),
  notFound: (a) => `Not found: repository "${a.repo}".`,
  render: (o) => o.branches.map((b) => `${b.sha} ${field(b.name)}\n`).join(''),
});
