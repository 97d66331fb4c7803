import * as z from 'zod/v4';
import type { Comparison } from '../../upstream/types.js';
import { CommitOut, FileChangeOut, Ref, Repo } from '../schemas.js';
import { commitLine, fileChangeText } from '../render.js';
import { defineTool } from '../tool.js';

type Args = { repo: string; base: string; head: string };
const Output = z.object({
  status: z.enum(['ahead', 'behind', 'identical', 'diverged']),
  ahead_by: z.number(),
  behind_by: z.number(),
  merge_base: z.string(),
  commits: z.array(CommitOut),
  files: z.array(FileChangeOut),
});
type Output = z.infer<typeof Output>;
const input = z.strictObject({ repo: Repo, base: Ref, head: Ref });

export const compare = defineTool<Args, Comparison, Output>({
  name: 'compare',
  access: 'read',
  // Comparing refs reveals branches and unfiltered diffs: operator surface only.
  surfaces: ['root'],
  pathMode: 'all',
  description: 'Compare two refs of a repository: commits and changed files from base to head (operator surface only).',
  annotations: {
    title: 'Compare refs',
    readOnlyHint: true,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  },
  agentInput: input,
  rootInput: input,
  output: Output,
  paths: () => [],
  rootTarget: (a) => ({ repo: a.repo, ref: a.head }),
  run: (a, ctx) => ctx.upstream.compare(a.repo, a.base, a.head),
  filter: (c) => ({
    kind: 'ok',
    value: {
      status: c.status,
      ahead_by: c.ahead_by,
      behind_by: c.behind_by,
      merge_base: c.merge_base,
      commits: c.commits.map((x) => ({
        sha: x.sha,
        message: x.message,
        author: x.author,
        committer: x.committer,
        parents: [...x.parents],
      })),
      files: [...c.files],
    },
  }),
  notFound: (a) => `Not found: repository "${a.repo}" or ref "${a.base}"/"${a.head}".`,
  render: (o) =>
    `${o.status}: ahead ${o.ahead_by}, behind ${o.behind_by}, merge base ${o.merge_base}\n` +
    o.commits.map((c) => `${commitLine(c)}\n`).join('') +
    `${o.files.length} files\n` +
    o.files.map(fileChangeText).join(''),
});
