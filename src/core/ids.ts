/**
 * The identifiers an agent may see. Rule: no id served on an agent surface may depend on content the perimeter
 * cannot read. A git tree id hashes every entry below the directory, hidden ones included, so an agent could
 * recompute it from the visible entries, learn that something hidden lives there, watch it change and test guesses
 * of short hidden files offline: directories are served without one. A blob id hashes only its own (readable) bytes;
 * a submodule entry carries the commit it pins, which is a commit id (the accepted exception, SPEC §4.4).
 */
import type { EntryType, TreeEntry } from './model.js';

/** A listing entry as an agent receives it: directories carry no object id. */
export type ServedEntry =
  | { readonly path: string; readonly type: 'dir' }
  | { readonly path: string; readonly type: Exclude<EntryType, 'dir'>; readonly sha: string; readonly size?: number };

/** Drops every id that hashes more than the entry's own readable bytes. */
export function agentEntry(e: TreeEntry): ServedEntry {
  switch (e.type) {
    case 'dir':
      return { path: e.path, type: 'dir' };
    case 'file':
    case 'symlink':
    case 'submodule':
      return e.size === undefined
        ? { path: e.path, type: e.type, sha: e.sha }
        : { path: e.path, type: e.type, sha: e.sha, size: e.size };
    default: {
      const never: never = e.type;
      throw new Error(`unknown entry type ${String(never)}`);
    }
  }
}
