import * as z from 'zod/v4';
import {
  blindBadLinks,
  crossingSides,
  filterCommit,
  linkCandidates,
  linkKey,
  linkServable,
  linkTargetOf,
  statsOf,
  wholeFileChange,
  wholeKey,
  type CommitDetail,
  type LinkSide,
  type WholeChange,
} from '../../core/index.js';
import type { UpResult } from '../../upstream/types.js';
import { CommitOut, FileChangeOut, Repo, Ref } from '../schemas.js';
import { defineTool, type ToolContext } from '../tool.js';

const Sha = z.string().regex(/^[0-9a-f]{40}$/, 'Give the full 40-character lowercase commit SHA.');
type Args = { sha: string; repo?: string; ref?: string | undefined };

const Output = CommitOut.extend({
  files: z.array(FileChangeOut),
  stats: z.object({ additions: z.number(), deletions: z.number(), total: z.number() }),
  omitted_count: z.number().describe('Changed files in this commit that are outside what you can read or write (never named).'),
});
type Output = z.infer<typeof Output>;

/**
 * Most files one call reads to tell links from one-line files (each a blob read; on GitHub requests). Candidates
 * beyond it are shown as if they were links to hidden targets (no patch, zero counts): safe, and judged on readable
 * paths only.
 */
export const MAX_LINK_CHECKS = 50;

/** Most visible sides of boundary-crossing renames read whole per call; beyond it they keep the paired counts (SPEC §8). */
export const MAX_WHOLE_READS = 100;

/** The commit plus whole-file views of the visible sides of renames that cross the read boundary. */
interface Fetched {
  readonly commit: CommitDetail;
  readonly whole: ReadonlyMap<string, WholeChange>;
  /** `linkKey`s of the sides that are symlinks whose target the scope cannot read. */
  readonly badLinks: ReadonlySet<string>;
}

const view = (c: CommitDetail, agent: boolean) => ({
  sha: c.sha,
  message: c.message,
  author: c.author,
  committer: c.committer,
  ...(agent ? {} : { parents: [...c.parents] }),
});

/**
 * Reads the visible side of each boundary-crossing rename as a whole file (at the commit for an add, at the first
 * parent for a delete), so the filter can show it exactly as an unpaired add or delete.
 */
async function withWholeFiles(c: CommitDetail, ctx: ToolContext): Promise<UpResult<Fetched>> {
  const empty = new Map<string, WholeChange>();
  if (ctx.binding.surface === 'root') return { ok: true, value: { commit: c, whole: empty, badLinks: new Set() } };
  const crossing = crossingSides(c, ctx.scope);
  const added = crossing.added.slice(0, MAX_WHOLE_READS);
  const removed = crossing.removed.slice(0, Math.max(0, MAX_WHOLE_READS - added.length));
  const parent = c.parents[0];
  const whole = new Map<string, WholeChange>();
  const sides: ['added' | 'removed', string | undefined, string[]][] = [
    ['added', c.sha, added],
    ['removed', parent, removed],
  ];
  for (const [side, at, paths] of sides) {
    if (paths.length === 0 || at === undefined) continue;
    const reads = await ctx.upstream.readFiles(ctx.target.repo, at, paths);
    if (!reads.ok) return reads;
    for (const r of reads.value) if (r.ok) whole.set(wholeKey(side, r.path), wholeFileChange(r.bytes, side));
  }
  // Which candidate sides are links whose target is not readable (their patch would be the target text).
  const { atNew, atOld } = linkCandidates(c.files, ctx.scope);
  const badLinks = new Set<string>();
  const checkNew = atNew.slice(0, MAX_LINK_CHECKS);
  const checkOld = atOld.slice(0, Math.max(0, MAX_LINK_CHECKS - checkNew.length));
  for (const p of atNew.slice(checkNew.length)) badLinks.add(linkKey('new', p));
  for (const p of atOld.slice(checkOld.length)) badLinks.add(linkKey('old', p));
  const linkSides: [LinkSide, string | undefined, string[]][] = [
    ['new', c.sha, checkNew],
    ['old', parent, checkOld],
  ];
  for (const [side, at, paths] of linkSides) {
    if (paths.length === 0 || at === undefined) continue;
    const reads = await ctx.upstream.readFiles(ctx.target.repo, at, paths);
    if (!reads.ok) return reads;
    for (const r of reads.value) {
      if (!r.ok || !r.symlink) continue;
      const target = linkTargetOf(r.bytes);
      if (target === undefined || !linkServable(r.path, target, ctx.scope)) badLinks.add(linkKey(side, r.path));
    }
  }
  return { ok: true, value: { commit: c, whole, badLinks } };
}

export const getCommit = defineTool<Args, Fetched, Output>({
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
  run: async (a, ctx) => {
    const got = await ctx.upstream.getCommit(ctx.target.repo, a.sha, ctx.binding.surface === 'agent' || a.ref !== undefined ? ctx.target.ref : undefined);
    return got.ok ? withWholeFiles(got.value, ctx) : got;
  },
  filter: ({ commit: c, whole, badLinks }, _a, ctx) => {
    if (ctx.binding.surface === 'root') {
      return { kind: 'ok', value: { ...view(c, false), files: [...c.files], stats: statsOf(c.files), omitted_count: 0 } };
    }
    const cut = filterCommit(c, ctx.scope, whole);
    if (cut.kind === 'invisible') return { kind: 'not_found' };
    const files = blindBadLinks(cut.commit.files, badLinks);
    return { kind: 'ok', value: { ...view(cut.commit, true), files, stats: statsOf(files), omitted_count: cut.omitted_count } };
  },
  notFound: (a) => `Not found: no commit ${a.sha} on this branch. Use list_commits to find commit SHAs.`,
});
