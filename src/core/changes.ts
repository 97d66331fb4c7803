// What changed between two listings of a branch, as one perimeter sees it, and the payload a change cursor seals.
// Pure: listings in, changes out. Both sides are cut to the scope *before* pairing renames, so a hidden file can
// never be paired with a visible one (a rename across the boundary reads as the plain add or delete it looks like).
import * as z from 'zod/v4';
import type { TreeEntry } from './model.js';
import type { Scope } from './scope.js';
import { linkServable } from './symlink.js';

/** One change to a readable path. */
export interface PathChange {
  readonly path: string;
  readonly change: 'added' | 'modified' | 'deleted' | 'renamed';
  readonly previous_path?: string;
}

// git's empty blob: empty files are never paired as renames of each other (git does not pair them either).
const EMPTY_BLOB = new Set([
  'e69de29bb2d1d6434b8b29ae775ad8c2e48c5391',
  '473a0f4c3be8a93681a267e3b1e9a7dcda1185436fe141f7749120a303721813',
]);

/**
 * The target text of the symlinks read on each side (undefined: read, but not a link or not UTF-8). A link absent
 * from its side's map was not read and reads as missing, as in get_tree.
 */
export interface ListingLinks {
  readonly base: ReadonlyMap<string, string | undefined>;
  readonly head: ReadonlyMap<string, string | undefined>;
}

// One visibility rule for a listing entry, the one get_tree and get_file apply: readable, and a symlink only when
// its target is readable too (`linkServable`). Without `links` (the operator surface) links are shown as they are.
function visible(
  entries: readonly TreeEntry[],
  scope: Scope,
  links: ReadonlyMap<string, string | undefined> | undefined,
): Map<string, TreeEntry> {
  const out = new Map<string, TreeEntry>();
  for (const e of entries) {
    if (e.type === 'dir' || !scope.canRead(e.path)) continue;
    if (e.type === 'symlink' && links !== undefined) {
      const target = links.get(e.path);
      if (target === undefined || !linkServable(e.path, target, scope)) continue;
    }
    out.set(e.path, e);
  }
  return out;
}

/**
 * The readable symlinks whose targets `diffListings` needs, per side, at most `max` per side in path order: those
 * that are not the very same entry (path, blob) on the other side. A link unchanged on both sides yields no change
 * whether it shows or not, so it is never read. The choice depends on readable entries only.
 */
export function linksToJudge(
  base: readonly TreeEntry[],
  head: readonly TreeEntry[],
  scope: Scope,
  max: number,
): { base: string[]; head: string[] } {
  const links = (side: readonly TreeEntry[]) =>
    new Map(side.filter((e) => e.type === 'symlink' && scope.canRead(e.path)).map((e) => [e.path, e.sha]));
  const before = links(base);
  const after = links(head);
  const changed = (mine: Map<string, string>, other: Map<string, string>) =>
    [...mine]
      .filter(([path, sha]) => other.get(path) !== sha)
      .map(([path]) => path)
      .sort()
      .slice(0, max);
  return { base: changed(before, after), head: changed(after, before) };
}

/**
 * Changes from `base` to `head` (recursive listings of the whole tree) on readable paths, sorted by path. A rename
 * is an exact one: a deleted and an added readable file with the same blob (first deleted path pairs with the first
 * added one, in path order). Content edits show as `modified`, so do type changes (file ↔ symlink). With `links`
 * (agent surfaces) a symlink counts only while its target is readable: one whose target is hidden is absent on that
 * side, exactly as get_tree and get_file answer it.
 */
export function diffListings(
  base: readonly TreeEntry[],
  head: readonly TreeEntry[],
  scope: Scope,
  links?: ListingLinks,
): PathChange[] {
  const before = visible(base, scope, links?.base);
  const after = visible(head, scope, links?.head);
  const out: PathChange[] = [];
  const added: TreeEntry[] = [];
  const deleted: TreeEntry[] = [];
  for (const [path, e] of after) {
    const old = before.get(path);
    if (!old) added.push(e);
    else if (old.sha !== e.sha || old.type !== e.type) out.push({ path, change: 'modified' });
  }
  for (const [path, e] of before) if (!after.has(path)) deleted.push(e);
  const byPath = (a: TreeEntry, b: TreeEntry) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);
  added.sort(byPath);
  deleted.sort(byPath);
  const unpaired = new Map<string, TreeEntry[]>();
  for (const a of added) {
    if (a.type !== 'file' || EMPTY_BLOB.has(a.sha)) continue;
    const list = unpaired.get(a.sha) ?? [];
    list.push(a);
    unpaired.set(a.sha, list);
  }
  const paired = new Set<string>();
  for (const d of deleted) {
    const candidates = d.type === 'file' && !EMPTY_BLOB.has(d.sha) ? unpaired.get(d.sha) : undefined;
    const to = candidates?.shift();
    if (to) {
      paired.add(to.path);
      out.push({ path: to.path, change: 'renamed', previous_path: d.path });
    } else out.push({ path: d.path, change: 'deleted' });
  }
  for (const a of added) if (!paired.has(a.path)) out.push({ path: a.path, change: 'added' });
  return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** What a change cursor carries once opened: where it was issued and the commit it stands for. */
export const CursorPayload = z.strictObject({
  v: z.literal(1),
  /** `agent:<perimeter id>` or `root`. */
  who: z.string().min(1).max(300),
  repo: z.string().min(1).max(4096),
  branch: z.string().min(1).max(255),
  commit: z.string().regex(/^[0-9a-f]{40}([0-9a-f]{24})?$/),
});
export type CursorPayload = z.infer<typeof CursorPayload>;

/** Parses opened cursor bytes; anything malformed is `undefined` (the caller answers a fresh start, never why). */
export function parseCursorPayload(json: string): CursorPayload | undefined {
  try {
    const r = CursorPayload.safeParse(JSON.parse(json));
    return r.success ? r.data : undefined;
  } catch {
    return undefined;
  }
}

/** True when an opened cursor was issued to exactly this place (same perimeter or surface, repository and branch). */
export function cursorFits(p: CursorPayload, here: Omit<CursorPayload, 'v' | 'commit'>): boolean {
  return p.who === here.who && p.repo === here.repo && p.branch === here.branch;
}
