import * as z from 'zod/v4';
import {
  contentCap,
  filterCommit,
  linkCandidates,
  linkKey,
  linkServable,
  linkTargetOf,
  pageOf,
  statsOf,
  unpairedSides,
  wholeFileChange,
  wholeKey,
  type CommitDetail,
  type LinkSide,
  type WholeChange,
} from '../../core/index.js';
import type { UpResult } from '../../upstream/types.js';
import { fileChangeText, moreLine, personOf, untrusted, type Fence } from '../render.js';
import { CommitOut, FileChangeOut, Repo, Ref } from '../schemas.js';
import { defineTool, type ToolContext, type ToolOutcome } from '../tool.js';

const Sha = z.string().regex(/^[0-9a-f]{40}$/, 'Give the full 40-character lowercase commit SHA.');
type Args = { sha: string; files_page?: number | undefined; repo?: string; ref?: string | undefined };

const FilesPage = z.number().int().min(1).max(1_000_000).optional();

export const Output = CommitOut.extend({
  files: z.array(FileChangeOut),
  // Of every visible file of the commit, whatever the page.
  stats: z.object({ additions: z.number(), deletions: z.number(), total: z.number() }),
  // Changed files outside what the agent can read or write (never named).
  omitted_count: z.number(),
  truncated: z.boolean(),
  next_files_page: z.number().optional(),
});
type Output = z.infer<typeof Output>;
type FileOut = z.infer<typeof FileChangeOut>;

/** Room kept in each page for the answer's own fields beside the header (paging, separators). */
const ENVELOPE_BYTES = 160;

const jsonBytes = (v: unknown): number => Buffer.byteLength(JSON.stringify(v));

/**
 * One page of the visible files. Pages are cut on the visible files only; a file that could not fit a page even
 * alone is listed without its patch, which the output already leaves out for a patch too large to show.
 */
function paged(
  head: Omit<Output, 'files' | 'truncated' | 'next_files_page'>,
  files: readonly FileOut[],
  a: Args,
  cap: number,
): ToolOutcome<Output> {
  const finite = Number.isFinite(cap);
  const budget = cap - ENVELOPE_BYTES - (finite ? jsonBytes(head) : 0);
  const fitted = finite
    ? files.map((f) => (f.patch !== undefined && jsonBytes(f) + 1 > budget ? withoutPatch(f) : f))
    : files;
  const sizes = fitted.map((f) => (finite ? jsonBytes(f) + 1 : 0));
  const page = pageOf(sizes, budget, a.files_page ?? 1);
  if (!page.ok) return { kind: 'refused', message: `get_commit ${a.sha}: files_${page.message}` };
  const shown = fitted.slice(page.value.start, page.value.end);
  const paging =
    page.value.next === undefined ? { truncated: false } : { truncated: true, next_files_page: page.value.next };
  return { kind: 'ok', value: { ...head, files: shown, ...paging } };
}

function withoutPatch(f: FileOut): FileOut {
  const { patch: _patch, ...rest } = f;
  return rest;
}

/**
 * `git show`-like (its default format: the committer stays in structuredContent): the header, the message (fenced as
 * untrusted text), each
 * file's status line and patch. A summary line appears only when something is not on this page: other files
 * omitted, or more pages (then with the whole commit's counts).
 */
function render(o: Output, fence: Fence): string {
  const parents = o.parents === undefined ? '' : ` (parents ${o.parents.join(',') || 'none'})`;
  const msg = untrusted(fence, o.message);
  const notes = [
    ...(o.omitted_count > 0 ? [`${o.omitted_count} other files omitted`] : []),
    ...(o.truncated ? [`all visible files +${o.stats.additions} -${o.stats.deletions}`] : []),
  ];
  const summary = notes.length ? `${notes.join('; ')}\n` : '';
  const more = o.next_files_page === undefined ? '' : moreLine('files_page', o.next_files_page);
  return `commit ${o.sha}${parents}\nAuthor: ${personOf(o.author)} ${o.author.date}\n\n${msg}\n${summary}${o.files.map(fileChangeText).join('')}${more}`;
}

/**
 * Most files one call reads to tell links from one-line files (each a blob read; on GitHub requests). Candidates
 * beyond it are treated as links to hidden targets (left out): safe, and judged on readable
 * paths only.
 */
export const MAX_LINK_CHECKS = 50;

/** Most visible sides of renames and copies read whole per call; beyond it they keep the paired counts (SPEC §8). */
export const MAX_WHOLE_READS = 100;

/** The commit plus whole-file views of the sides `filterCommit` shows unpaired. */
export interface Fetched {
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

const wholeSide = (side: LinkSide): 'added' | 'removed' => (side === 'new' ? 'added' : 'removed');

/**
 * Reads the visible sides of every rename and copy as whole files (at the commit for an add, at the first parent for
 * a delete), so the filter can show them exactly as unpaired adds and deletes, and the readable paths whose change
 * could be a symlink's, to tell which sides are links whose target the scope cannot read. Every side read serves
 * both: a renamed link has no patch to make it a candidate, but reading it tells.
 */
export async function withWholeFiles(c: CommitDetail, ctx: ToolContext): Promise<UpResult<Fetched>> {
  if (ctx.binding.surface === 'root') return { ok: true, value: { commit: c, whole: new Map(), badLinks: new Set() } };
  const unpaired = unpairedSides(c, ctx.scope);
  const added = unpaired.added.slice(0, MAX_WHOLE_READS);
  const removed = unpaired.removed.slice(0, Math.max(0, MAX_WHOLE_READS - added.length));
  // Which candidate sides are links whose target is not readable (their patch would be the target text).
  const { atNew, atOld } = linkCandidates(c.files, ctx.scope);
  const badLinks = new Set<string>();
  const checkNew = atNew.slice(0, MAX_LINK_CHECKS);
  const checkOld = atOld.slice(0, Math.max(0, MAX_LINK_CHECKS - checkNew.length));
  for (const p of atNew.slice(checkNew.length)) badLinks.add(linkKey('new', p));
  for (const p of atOld.slice(checkOld.length)) badLinks.add(linkKey('old', p));
  const parent = c.parents[0];
  const whole = new Map<string, WholeChange>();
  const sides: [LinkSide, string | undefined, string[]][] = [
    ['new', c.sha, [...new Set([...added, ...checkNew])]],
    ['old', parent, [...new Set([...removed, ...checkOld])]],
  ];
  for (const [side, at, paths] of sides) {
    if (paths.length === 0 || at === undefined) continue;
    const reads = await ctx.upstream.readFiles(ctx.target.repo, at, paths);
    if (!reads.ok) return reads;
    for (const r of reads.value) {
      if (!r.ok) continue;
      // A link's whole view is its target text: kept only when the link may be shown at all.
      whole.set(wholeKey(wholeSide(side), r.path), wholeFileChange(r.bytes, wholeSide(side)));
      if (!r.symlink) continue;
      const target = linkTargetOf(r.bytes);
      if (target === undefined || !linkServable(r.path, target, ctx.scope)) badLinks.add(linkKey(side, r.path));
    }
  }
  return { ok: true, value: { commit: c, whole, badLinks } };
}

export const getCommit = defineTool<Args, Fetched, Output>({
  name: 'get_commit',
  access: 'read',
  surfaces: ['agent', 'root'],
  pathMode: 'all',
  description:
    'A commit of the bound branch: message, author, diffs of your readable files (paged: `next_files_page`), `omitted_count`.',
  annotations: {
    title: 'Show a commit',
    readOnlyHint: true,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  },
  agentInput: z.strictObject({ sha: Sha, files_page: FilesPage }),
  rootInput: z.strictObject({
    repo: Repo,
    sha: z.string().min(1).max(255).describe('Commit SHA (or any ref on this surface).'),
    files_page: FilesPage,
    ref: Ref.optional().describe('Only answer if the commit is reachable from this branch.'),
  }),
  output: Output,
  paths: () => [],
  rootTarget: (a) => ({ repo: a.repo ?? '', ref: a.ref ?? a.sha }),
  run: async (a, ctx) => {
    const got = await ctx.upstream.getCommit(
      ctx.target.repo,
      a.sha,
      ctx.binding.surface === 'agent' || a.ref !== undefined ? ctx.target.ref : undefined,
    );
    return got.ok ? withWholeFiles(got.value, ctx) : got;
  },
  filter: ({ commit: c, whole, badLinks }, a, ctx) => {
    if (ctx.binding.surface === 'root')
      return paged(
        { ...view(c, false), stats: statsOf(c.files), omitted_count: 0 },
        c.files,
        a,
        contentCap(ctx.binding),
      );
    const cut = filterCommit(c, ctx.scope, whole, badLinks);
    if (cut.kind === 'invisible') return { kind: 'not_found' };
    return paged(
      { ...view(cut.commit, true), stats: cut.stats, omitted_count: cut.omitted_count },
      cut.commit.files,
      a,
      contentCap(ctx.binding),
    );
  },
  render,
  // Its answer on an agent binding is fixed by the head commit, the arguments and the binding (answer cache).
  pinned: true,
  notFound: (a) => `Not found: no commit ${a.sha} on this branch. Use list_commits to find commit SHAs.`,
});
