import * as z from 'zod/v4';
import { MAX_SCAN, visibleHistory, type HistoryPage } from '../history.js';
import { commitLine, untrusted, type Fence } from '../render.js';
import { CommitOut, Path, rootTargetOf, withTarget } from '../schemas.js';
import { defineTool } from '../tool.js';

export const MAX_PER_PAGE = 100;
export const MAX_PAGE = 1_000;

const shape = {
  path: Path.optional().describe('Only commits touching this path.'),
  per_page: z.number().int().min(1).max(MAX_PER_PAGE).optional().describe('Default 30.'),
  page: z.number().int().min(1).max(MAX_PAGE).optional(),
};
type Args = { path?: string | undefined; per_page?: number | undefined; page?: number | undefined };

export const Output = z.object({
  commits: z.array(CommitOut),
  page: z.number(),
  per_page: z.number(),
  has_more: z.boolean(),
});
type Output = z.infer<typeof Output>;

/**
 * One line per commit (`sha date author subject`) under a page line; get_commit shows a whole message. Authors and
 * subjects are written by people: the lines are fenced as untrusted text, once for the page.
 */
function render(o: Output, fence: Fence): string {
  const head = `page ${o.page}, ${o.commits.length} commits${o.has_more ? `; more: page ${o.page + 1}` : ''}\n`;
  if (o.commits.length === 0) return head;
  return head + untrusted(fence, o.commits.map((c) => `${commitLine(c)}\n`).join(''));
}

export const listCommits = defineTool<Args, HistoryPage, Output>({
  name: 'list_commits',
  access: 'read',
  surfaces: ['agent', 'root'],
  // A hidden narrowing path is answered like a readable path with no history (an empty page), never with the
  // not-found message: a missing path inside the scope gets an empty page too, so the two must read the same.
  pathMode: 'each',
  description: 'List commits of the bound branch that change files you can read, newest first.',
  annotations: {
    title: 'List commits',
    readOnlyHint: true,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  },
  agentInput: z.strictObject(shape),
  rootInput: withTarget(shape),
  output: Output,
  paths: (a) => (a.path === undefined ? [] : [{ path: a.path, role: 'dir' }]),
  rootTarget: rootTargetOf,
  // A page deeper than one call may scan could only ever be empty, after the whole scan's cost: refuse it for free.
  guard: (a) => {
    const depth = (a.page ?? 1) * (a.per_page ?? 30);
    return depth > MAX_SCAN
      ? `Invalid argument: list_commits reaches at most ${MAX_SCAN} commits deep (page × per_page is ${depth}). Narrow it with path to see older history.`
      : undefined;
  },
  run: (a, ctx) => {
    if (a.path !== undefined && ctx.hidden.has(a.path))
      return Promise.resolve({ ok: true, value: { commits: [], hasMore: false, scanLimited: false } });
    const perPage = a.per_page ?? 30;
    return visibleHistory(ctx.upstream, ctx.scope, {
      repo: ctx.target.repo,
      ref: ctx.target.ref,
      readGlobs: ctx.binding.surface === 'agent' ? ctx.binding.readGlobs : undefined,
      // Privacy zones always hide files from an agent, so a commit touching a read prefix may touch only hidden
      // files: agents' history is verified, never trusted to its prefixes.
      trustPrefixes: ctx.binding.surface !== 'agent',
      path: a.path,
      skip: ((a.page ?? 1) - 1) * perPage,
      limit: perPage,
    });
  },
  filter: (page, a, ctx) => {
    const agent = ctx.binding.surface === 'agent';
    const commits = page.commits.map((c) => ({
      sha: c.sha,
      message: c.message,
      author: c.author,
      committer: c.committer,
      // Parent ids would point at commits the agent cannot see: they stay on the operator surface.
      ...(agent ? {} : { parents: [...c.parents] }),
    }));
    return { kind: 'ok', value: { commits, page: a.page ?? 1, per_page: a.per_page ?? 30, has_more: page.hasMore } };
  },
  // Its answer on an agent binding is fixed by the head commit, the arguments and the binding (answer cache).
  pinned: true,
  notFound: (a) =>
    a.path === undefined
      ? 'Not found: the bound branch does not exist any more. Ask the operator for a new connection URL.'
      : `Not found: path "${a.path}" does not exist on this branch. Use get_tree to see which paths exist.`,
  render,
});
