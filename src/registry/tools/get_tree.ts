import * as z from 'zod/v4';
import { filterTree, type TreeEntry } from '../../core/index.js';
import type { TreeListing } from '../../upstream/types.js';
import { Path, rootTargetOf, withTarget } from '../schemas.js';
import { defineTool } from '../tool.js';

const shape = {
  path: Path.optional().describe('Directory to list; omit for the repository root.'),
  recursive: z.boolean().optional().describe('List every level below the directory (default false: one level).'),
};
type Args = { path?: string | undefined; recursive?: boolean | undefined };

const Entry = z.object({
  path: z.string(),
  type: z.enum(['file', 'dir', 'symlink', 'submodule']),
  sha: z.string(),
  size: z.number().optional(),
});
const Output = z.object({ path: z.string(), recursive: z.boolean(), entries: z.array(Entry), count: z.number() });
type Output = z.infer<typeof Output>;

const strip = (e: TreeEntry): z.infer<typeof Entry> =>
  e.size === undefined ? { path: e.path, type: e.type, sha: e.sha } : { path: e.path, type: e.type, sha: e.sha, size: e.size };

export const getTree = defineTool<Args, TreeListing, Output>({
  name: 'get_tree',
  access: 'read',
  agentSurface: true,
  pathMode: 'all',
  description:
    'List files and directories of the bound branch. Give `path` to list a directory, `recursive: true` for every level below it.',
  annotations: { title: 'List files', readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  agentInput: z.strictObject(shape),
  rootInput: withTarget(shape),
  output: Output,
  paths: (a) => [{ path: a.path ?? '', role: 'dir' }],
  rootTarget: rootTargetOf,
  run: (a, ctx) => ctx.upstream.getTree(ctx.target.repo, ctx.target.ref, a.path ?? ''),
  filter: (listing, a, ctx) => {
    const base = a.path ?? '';
    const recursive = a.recursive ?? false;
    const entries = filterTree(listing.entries, ctx.scope, base, recursive).map(strip);
    // An existing directory with nothing visible below it reads as missing; the root always exists.
    if (entries.length === 0 && base !== '') return { kind: 'not_found' };
    return { kind: 'ok', value: { path: base, recursive, entries, count: entries.length } };
  },
  notFound: (a) => `Not found: directory "${a.path ?? ''}" does not exist on this branch. List its parent with get_tree to see what exists.`,
});
