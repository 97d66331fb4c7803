import * as z from 'zod/v4';
import {
  agentEntry,
  contentCap,
  filterTree,
  isWithin,
  jsonStringBytes,
  linkServable,
  linkTargetOf,
  pageOf,
  type TreeEntry,
} from '../../core/index.js';
import type { TreeListing, UpResult } from '../../upstream/types.js';
import { field, moreLine } from '../render.js';
import { Page, Path, rootTargetOf, withTarget } from '../schemas.js';
import { defineTool, type ToolContext } from '../tool.js';

/**
 * Most symlinks one listing resolves (each is a blob read; on GitHub a request, cached by blob id); links beyond it
 * read as missing. The cut depends on readable paths only, so it tells nothing about hidden ones.
 */
export const MAX_LINKS_PER_LISTING = 200;

const shape = {
  path: Path.optional().describe('Default: the root.'),
  recursive: z.boolean().optional().describe('All levels below.'),
  page: Page,
};
type Args = { path?: string | undefined; recursive?: boolean | undefined; page?: number | undefined };

const Entry = z.object({
  path: z.string(),
  type: z.enum(['file', 'dir', 'symlink', 'submodule']),
  // Blob id of a file or symlink, pinned commit of a submodule; directories carry none on agent surfaces.
  sha: z.string().optional(),
  size: z.number().optional(),
});
const Output = z.object({
  path: z.string(),
  recursive: z.boolean(),
  entries: z.array(Entry),
  count: z.number(),
  truncated: z.boolean(),
  next_page: z.number().optional(),
});
type Output = z.infer<typeof Output>;

/** Room kept in each page for the answer's own fields (path, count, paging), beside the base path itself. */
const ENVELOPE_BYTES = 160;

/** Bytes of an entry's JSON (`{"path":…,"type":…,"sha":…,"size":…}`), counted without serialising 100,000 of them. */
function entryBytes(e: z.infer<typeof Entry>): number {
  // {"path":  ,"type":""  }  = 8 + 10 + 1
  let n = 19 + jsonStringBytes(e.path) + e.type.length;
  if (e.sha !== undefined) n += 9 + jsonStringBytes(e.sha); // ,"sha":
  if (e.size !== undefined) n += 8 + String(e.size).length; // ,"size":
  return n;
}

/** One entry as a line: `type size sha path` (`-` where an entry has no size or id). */
const entryLine = (e: z.infer<typeof Entry>): string => `${e.type} ${e.size ?? '-'} ${e.sha ?? '-'} ${field(e.path)}\n`;

/** The compact listing: a header line, one line per entry, and how to ask for more. */
function render(o: Output): string {
  const head = `${o.path === '' ? '.' : field(o.path)}: ${o.count} entries${o.recursive ? ', recursive' : ''}\n`;
  return head + o.entries.map(entryLine).join('') + (o.next_page === undefined ? '' : moreLine('page', o.next_page));
}

/** The listing plus the target text of each readable symlink in it (agent surfaces only). */
interface Listed {
  readonly listing: TreeListing;
  readonly links: ReadonlyMap<string, string | undefined>;
}

const full = (e: TreeEntry): z.infer<typeof Entry> =>
  e.size === undefined
    ? { path: e.path, type: e.type, sha: e.sha }
    : { path: e.path, type: e.type, sha: e.sha, size: e.size };

/** The entry of `base`'s own listing that `path` lies in (itself when it is a direct child). */
const childOf = (base: string, path: string): string => {
  const rest = base === '' ? path : path.slice(base.length + 1);
  const head = rest.split('/')[0] ?? rest;
  return base === '' ? head : `${base}/${head}`;
};

/**
 * Reads the target text of the readable symlinks the answer depends on, so the filter can judge them first: every
 * link of a recursive listing, and in a one-level listing the direct children plus links in a child directory that
 * no other readable entry keeps visible (only there can a link decide whether the directory shows).
 */
async function withLinks(
  listing: TreeListing,
  base: string,
  recursive: boolean,
  ctx: ToolContext,
): Promise<UpResult<Listed>> {
  // Without a symlink in the listing there is nothing to read: skip the scan (it judged every entry, and the filter
  // judges them all again).
  if (ctx.binding.surface === 'root' || !listing.entries.some((e) => e.type === 'symlink'))
    return { ok: true, value: { listing, links: new Map() } };
  const below = listing.entries.filter(
    (e) => e.type !== 'dir' && isWithin(e.path, base) && e.path !== base && ctx.scope.canRead(e.path),
  );
  const keptByOthers = new Set(below.filter((e) => e.type !== 'symlink').map((e) => childOf(base, e.path)));
  const paths = below
    .filter(
      (e) =>
        e.type === 'symlink' &&
        (recursive || childOf(base, e.path) === e.path || !keptByOthers.has(childOf(base, e.path))),
    )
    .map((e) => e.path)
    .slice(0, MAX_LINKS_PER_LISTING);
  if (paths.length === 0) return { ok: true, value: { listing, links: new Map() } };
  const reads = await ctx.upstream.readFiles(ctx.target.repo, listing.commit, paths);
  if (!reads.ok) return reads;
  const links = new Map<string, string | undefined>();
  for (const r of reads.value) links.set(r.path, r.ok && r.symlink ? linkTargetOf(r.bytes) : undefined);
  return { ok: true, value: { listing, links } };
}

export const getTree = defineTool<Args, Listed, Output>({
  name: 'get_tree',
  access: 'read',
  surfaces: ['agent', 'root'],
  pathMode: 'all',
  description: 'List files and directories of the bound branch. Big listings are paged (`next_page`).',
  annotations: {
    title: 'List files',
    readOnlyHint: true,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  },
  agentInput: z.strictObject(shape),
  rootInput: withTarget(shape),
  output: Output,
  paths: (a) => [{ path: a.path ?? '', role: 'dir' }],
  rootTarget: rootTargetOf,
  run: async (a, ctx) => {
    const listed = await ctx.upstream.getTree(ctx.target.repo, ctx.target.ref, a.path ?? '');
    return listed.ok ? withLinks(listed.value, a.path ?? '', a.recursive ?? false, ctx) : listed;
  },
  filter: ({ listing, links }, a, ctx) => {
    const base = a.path ?? '';
    const recursive = a.recursive ?? false;
    const agent = ctx.binding.surface === 'agent';
    // A symlink whose target is not readable is dropped before the tree is cut, so the directories above it are
    // judged as if it did not exist (a directory holding only such a link reads as missing).
    const raw = agent
      ? listing.entries.filter((e) => {
          if (e.type !== 'symlink') return true;
          // A link that was not read does not change what shows: its directory is kept by another entry and a
          // one-level listing does not show it; dropping it keeps the cut identical.
          const target = links.get(e.path);
          return target !== undefined && linkServable(e.path, target, ctx.scope);
        })
      : listing.entries;
    const kept = filterTree(raw, ctx.scope, base, recursive);
    const entries = agent ? kept.map(agentEntry) : kept.map(full);
    // An existing directory with nothing visible below it reads as missing; the root always exists.
    if (entries.length === 0 && base !== '') return { kind: 'not_found' };
    // Pages are cut on the visible entries only, so no boundary can depend on a hidden one.
    const cap = contentCap(ctx.binding);
    const finite = Number.isFinite(cap);
    const sizes = entries.map((e) => (finite ? entryBytes(e) + 1 : 0));
    const page = pageOf(sizes, cap - ENVELOPE_BYTES - Buffer.byteLength(JSON.stringify(base)), a.page ?? 1);
    if (!page.ok) return { kind: 'refused', message: `get_tree "${base}": ${page.message}` };
    const shown =
      page.value.start === 0 && page.value.end === entries.length
        ? entries
        : entries.slice(page.value.start, page.value.end);
    const paging =
      page.value.next === undefined ? { truncated: false } : { truncated: true, next_page: page.value.next };
    return { kind: 'ok', value: { path: base, recursive, entries: shown, count: shown.length, ...paging } };
  },
  render,
  // Its answer on an agent binding is fixed by the head commit, the arguments and the binding (answer cache).
  pinned: true,
  notFound: (a) =>
    `Not found: directory "${a.path ?? ''}" does not exist on this branch. List its parent with get_tree to see what exists.`,
});
