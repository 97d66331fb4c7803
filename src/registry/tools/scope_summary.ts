import * as z from 'zod/v4';
import {
  CODEOWNERS_PATHS,
  cutChurn,
  cutStatus,
  decodeUtf8,
  filterTree,
  isWithin,
  linkServable,
  linkTargetOf,
  ownersOf,
  type Ownership,
  type StatusView,
  type TreeEntry,
} from '../../core/index.js';
import type { UpResult } from '../../upstream/types.js';
import type { ChurnListing } from '../../workspace/types.js';
import { visibleHistory } from '../history.js';
import { Path, rootTargetOf } from '../schemas.js';
import { field, subjectOf } from '../render.js';
import { defineTool, type ToolContext } from '../tool.js';
import { onTree, readableOnly, readOnly, up, wsRootFields } from '../workspace.js';
import { rawEntries } from './workspace_status.js';

/** Entries, commits and churn window of one summary. */
export const SCOPE_ENTRIES = 20;
export const SCOPE_COMMITS = 10;
export const CHURN_COMMITS = 100;

const shape = { path: Path.optional().describe('Subtree to summarise (default: the repository root).') };
type Args = { path?: string | undefined };

const Output = z.object({
  path: z.string(),
  working_tree: z.object({
    changed: z.number(),
    entries: z.array(z.object({ path: z.string(), status: z.string() })),
    truncated: z.boolean(),
  }),
  recent_commits: z.array(z.object({ sha: z.string(), subject: z.string() })),
  churn: z
    .object({ window_commits: z.number(), commits: z.number(), additions: z.number(), deletions: z.number() })
    .describe(`Over the last ${CHURN_COMMITS} commits of the branch touching this subtree, files you can read only.`),
  owners: z
    .object({ source: z.string(), pattern: z.string(), owners: z.array(z.string()) })
    .nullable()
    .describe('From CODEOWNERS, only when you can read it.'),
});
type Output = z.infer<typeof Output>;

interface Raw {
  readonly exists: boolean;
  readonly status: StatusView;
  readonly commits: readonly { sha: string; message: string }[];
  readonly churn: ChurnListing;
  readonly owners: { source: string; found: Ownership } | null;
}

/** The first readable CODEOWNERS (a hidden one is never opened, so it cannot shadow a readable one either). */
async function owners(ctx: ToolContext, scope: string): Promise<Raw['owners']> {
  const candidates = CODEOWNERS_PATHS.filter((p) => ctx.scope.canRead(p));
  if (candidates.length === 0) return null;
  const r = await ctx.upstream.readFiles(ctx.target.repo, ctx.target.ref, candidates, { maxBytes: 256 * 1024 });
  if (!r.ok) return null;
  for (const f of r.value) {
    if (!f.ok || f.symlink) continue;
    const text = decodeUtf8(f.bytes);
    if (text === undefined) continue;
    const found = ownersOf(text, scope);
    return found ? { source: f.path, found } : null;
  }
  return null;
}

/** Links read at most to decide whether a subtree holding only links shows (counted on readable entries only). */
const MAX_LINK_CHECKS = 100;

/**
 * Whether the committed subtree holds something get_tree would show: a readable file, or a link whose target is
 * readable (linkServable: a subtree holding only links to hidden files reads as missing, as it does in get_tree).
 */
async function committedHere(
  ctx: ToolContext,
  commit: string,
  entries: readonly TreeEntry[],
): Promise<UpResult<boolean>> {
  const files = entries.filter((e) => e.type !== 'dir');
  if (ctx.binding.surface !== 'agent' || files.some((e) => e.type !== 'symlink'))
    return { ok: true, value: files.length > 0 };
  const links = files.map((e) => e.path).slice(0, MAX_LINK_CHECKS);
  if (links.length === 0) return { ok: true, value: false };
  const reads = await ctx.upstream.readFiles(ctx.target.repo, commit, links);
  if (!reads.ok) return reads;
  const shown = reads.value.some((r) => {
    if (!r.ok || !r.symlink) return false;
    const target = linkTargetOf(r.bytes);
    return target !== undefined && linkServable(r.path, target, ctx.scope);
  });
  return { ok: true, value: shown };
}

function render(o: Output): string {
  const w = o.working_tree;
  const c = o.churn;
  return [
    `${field(o.path || '.')}: ${w.changed} changed${w.truncated ? ' (more)' : ''}; churn ${c.commits} commits +${c.additions} -${c.deletions} (last ${c.window_commits})`,
    ...w.entries.map((e) => `${e.status} ${field(e.path)}`),
    ...o.recent_commits.map((x) => `${x.sha} ${subjectOf(x.subject)}`),
    o.owners
      ? `owners (${field(o.owners.source)} ${field(o.owners.pattern)}): ${o.owners.owners.map(field).join(' ')}`
      : 'owners: none',
  ].join('\n');
}

export const scopeSummary = defineTool<Args, Raw, Output>({
  name: 'scope_summary',
  access: 'read',
  surfaces: ['agent', 'root'],
  requires: 'worktree',
  pathMode: 'all',
  description: 'A subtree at a glance: working-tree changes, recent commits, churn, CODEOWNERS owners.',
  annotations: readOnly('Summarise a subtree'),
  agentInput: z.strictObject(shape),
  rootInput: z.strictObject({ ...shape, ...wsRootFields }),
  output: Output,
  paths: (a) => [{ path: a.path ?? '', role: 'dir' }],
  rootTarget: rootTargetOf,
  run: (a, ctx) =>
    onTree(ctx, async (t): Promise<UpResult<Raw>> => {
      const path = a.path ?? '';
      const st = up(await t.status(readableOnly(ctx)));
      if (!st.ok) return st;
      const status = cutStatus(rawEntries(st.value), ctx.scope);
      const tree = await ctx.upstream.getTree(ctx.target.repo, ctx.target.ref, path);
      if (!tree.ok && tree.error.code !== 'not_found') return tree;
      const here = tree.ok
        ? await committedHere(ctx, tree.value.commit, filterTree(tree.value.entries, ctx.scope, path, true))
        : undefined;
      if (here && !here.ok) return here;
      const inTree = here?.value === true;
      const changed =
        [...status.staged, ...status.unstaged, ...status.conflicted].some((e) => isWithin(e.path, path)) ||
        status.untracked.some((p) => isWithin(p, path));
      const history = await visibleHistory(ctx.upstream, ctx.scope, {
        repo: ctx.target.repo,
        ref: ctx.target.ref,
        readGlobs: ctx.binding.surface === 'agent' ? ctx.binding.readGlobs : undefined,
        trustPrefixes: ctx.binding.surface !== 'agent',
        path: path === '' ? undefined : path,
        skip: 0,
        limit: SCOPE_COMMITS,
      });
      if (!history.ok) return history;
      // The window is counted on commits touching a readable file: hidden-only commits never use it up.
      const churn = up(await t.recentChurn(path, CHURN_COMMITS, readableOnly(ctx)));
      if (!churn.ok) return churn;
      return {
        ok: true,
        value: {
          exists: inTree || changed,
          status,
          commits: history.value.commits.map((c) => ({ sha: c.sha, message: c.message })),
          churn: churn.value,
          owners: await owners(ctx, path),
        },
      };
    }),
  filter: (r, a, ctx) => {
    // A subtree with nothing readable in it, on disk or committed, is as absent as one that does not exist.
    if (!r.exists) return { kind: 'not_found' };
    const path = a.path ?? '';
    const within = (p: string) => isWithin(p, path);
    const entries: { path: string; status: string }[] = [];
    for (const e of r.status.conflicted) if (within(e.path)) entries.push({ path: e.path, status: 'conflicted' });
    for (const e of r.status.staged) if (within(e.path)) entries.push({ path: e.path, status: `staged_${e.change}` });
    for (const e of r.status.unstaged) if (within(e.path)) entries.push({ path: e.path, status: e.change });
    for (const p of r.status.untracked) if (within(p)) entries.push({ path: p, status: 'untracked' });
    const changed = new Set(entries.map((e) => e.path)).size;
    const { commits, additions, deletions } = cutChurn(r.churn.commits, ctx.scope, path, CHURN_COMMITS);
    const value: Output = {
      path,
      working_tree: { changed, entries: entries.slice(0, SCOPE_ENTRIES), truncated: entries.length > SCOPE_ENTRIES },
      recent_commits: r.commits.map((x) => ({ sha: x.sha.slice(0, 12), subject: x.message.split('\n')[0] ?? '' })),
      churn: { window_commits: CHURN_COMMITS, commits, additions, deletions },
      owners: r.owners
        ? { source: r.owners.source, pattern: r.owners.found.pattern, owners: [...r.owners.found.owners] }
        : null,
    };
    return { kind: 'ok', value };
  },
  render,
  notFound: (a) =>
    `Not found: path "${a.path ?? ''}" does not exist on this branch. Use get_tree to see which paths exist.`,
});
