// Recursive tree listings kept by tree id: a tree id names its whole subtree, so a kept listing is exact for as long
// as it is kept. Bounded by the total number of entries held (oldest listing dropped first).
import type { RawEntry } from './tree.js';

/** Listings by tree id, bounded by entries held. */
export interface ListingCache {
  get(treeId: string): readonly RawEntry[] | undefined;
  set(treeId: string, entries: readonly RawEntry[]): void;
}

/** Creates a cache holding at most `maxEntries` listing entries in total. */
export function createListingCache(maxEntries = 250_000): ListingCache {
  const kept = new Map<string, readonly RawEntry[]>();
  let held = 0;
  return {
    get(treeId) {
      const hit = kept.get(treeId);
      if (hit) {
        kept.delete(treeId);
        kept.set(treeId, hit);
      }
      return hit;
    },
    set(treeId, entries) {
      if (entries.length > maxEntries || kept.has(treeId)) return;
      kept.set(treeId, entries);
      held += entries.length;
      for (const [k, v] of kept) {
        if (held <= maxEntries) break;
        kept.delete(k);
        held -= v.length;
      }
    },
  };
}
