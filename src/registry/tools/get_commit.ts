import * as z from 'zod/v4';
import { filterCommit, statsOf, type CommitDetail } from '../../core/index.js';
import { CommitOut, FileChangeOut, Repo, Ref } from '../schemas.js';
import { defineTool } from '../tool.js';

const Sha = z.string().regex(/^[0-9a-f]{40}$/, 'Give the full 40-character lowercase commit SHA.');
type Args = { sha: string; repo?: string; ref?: string | undefined };

const Output = CommitOut.extend({
  files: z.array(FileChangeOut),
  stats: z.object({ additions: z.number(), deletions: z.number(), total: z.number() }),
  omitted_count: z.number().describe('Changed files in this commit that are outside what you can read (never named).'),
});
type Output = z.infer<typeof Output>;

const view = (c: CommitDetail, agent: boolean) => ({
  sha: c.sha,
  message: c.message,
  author: c.author,
  committer: c.committer,
  ...(agent ? {} : { parents: [...c.parents] }),
});

export const getCommit = defineTool<Args, CommitDetail, Output>({
  name: 'get_commit',
  access: 'read',
  agentSurface: true,
  pathMode: 'all',
  description:
    'Show one commit of the bound branch: message, author, and the changed files you can read with their diffs. `omitted_count` tells how many other files changed.',
  annotations: { title: 'Show a commit', readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  agentInput: z.strictObject({ sha: Sha }),
  rootInput: z.strictObject({
    repo: Repo,
    sha: z.string().min(1).max(255).describe('Commit SHA (or any ref on this surface).'),
    ref: Ref.optional().describe('Only answer if the commit is reachable from this branch.'),
  }),
  output: Output,
  paths: () => [],
  rootTarget: (a) => ({ repo: a.repo ?? '', ref: a.ref ?? a.sha }),
  run: (a, ctx) =>
    ctx.upstream.getCommit(ctx.target.repo, a.sha, ctx.binding.surface === 'agent' || a.ref !== undefined ? ctx.target.ref : undefined),
  filter: (c, _a, ctx) => {
    if (ctx.binding.surface === 'root') {
      return { kind: 'ok', value: { ...view(c, false), files: [...c.files], stats: statsOf(c.files), omitted_count: 0 } };
    }
    const cut = filterCommit(c, ctx.scope);
    if (cut.kind === 'invisible') return { kind: 'not_found' };
    return { kind: 'ok', value: { ...view(cut.commit, true), files: [...cut.commit.files], stats: cut.stats, omitted_count: cut.omitted_count } };
  },
  notFound: (a) => `Not found: no commit ${a.sha} on this branch. Use list_commits to find commit SHAs.`,
});
