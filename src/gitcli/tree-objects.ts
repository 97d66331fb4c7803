// Tree and commit objects read through the object reader: raw tree parsing (`<mode> <name>\0<id>`), path lookup
// by exact bytes, and a bounded cache of parsed trees. Objects are named by their hash, so a cached tree can never
// be stale, whatever other processes write.
import type { ObjectReader } from './object-reader.js';

/** One raw tree entry; `name` holds the entry's bytes as latin1 (one char per byte) so lookups compare bytes. */
export interface RawTreeEntry {
  readonly mode: string;
  readonly rawName: string;
  readonly sha: string;
}

/** A parsed tree: entries in git's order, and the same entries by raw name. */
export interface ParsedTree {
  readonly entries: readonly RawTreeEntry[];
  readonly byName: ReadonlyMap<string, RawTreeEntry>;
  readonly bytes: number;
}

/** Parses a raw tree object; modes are padded to six digits as `ls-tree` prints them (`040000`). */
export function parseTreeObject(buf: Buffer, idBytes = 20): ParsedTree {
  const entries: RawTreeEntry[] = [];
  const byName = new Map<string, RawTreeEntry>();
  let p = 0;
  while (p < buf.length) {
    const sp = buf.indexOf(0x20, p);
    const nul = sp < 0 ? -1 : buf.indexOf(0, sp);
    if (sp < 0 || nul < 0 || nul + 1 + idBytes > buf.length) throw new Error('malformed tree object');
    const mode = buf.toString('latin1', p, sp).padStart(6, '0');
    const e = {
      mode,
      rawName: buf.toString('latin1', sp + 1, nul),
      sha: buf.toString('hex', nul + 1, nul + 1 + idBytes),
    };
    entries.push(e);
    byName.set(e.rawName, e);
    p = nul + 1 + idBytes;
  }
  return { entries, byName, bytes: buf.length };
}

/** A path segment as the latin1 form of its UTF-8 bytes (how `RawTreeEntry.rawName` is kept). */
export function rawSegment(segment: string): string {
  return Buffer.from(segment, 'utf8').toString('latin1');
}

/** The UTF-8 reading of a raw name, as `ls-tree` output decoded with toString('utf8') reads it. */
export function displayName(rawName: string): string {
  return Buffer.from(rawName, 'latin1').toString('utf8');
}

/** Largest tree object the reader will parse (a tree of ~100k entries). */
const MAX_TREE_BYTES = 16 * 1024 * 1024;

/** Reads trees by id with an LRU cache bounded by their raw size. */
export interface TreeReader {
  /** The tree `sha`, or undefined when no such tree exists. */
  tree(sha: string): Promise<ParsedTree | undefined>;
  /** Several trees in one round trip (uncached ones only). */
  trees(shas: readonly string[]): Promise<(ParsedTree | undefined)[]>;
  /** The entry at `path` (segments) below `root`, or undefined. */
  lookup(root: string, segments: readonly string[]): Promise<RawTreeEntry | undefined>;
}

/** Creates a tree reader over `reader`, caching up to `maxBytes` of raw tree objects. */
export function createTreeReader(reader: ObjectReader, maxBytes = 8 * 1024 * 1024): TreeReader {
  const cache = new Map<string, ParsedTree>();
  let held = 0;
  const remember = (sha: string, t: ParsedTree) => {
    if (t.bytes > maxBytes) return;
    cache.set(sha, t);
    held += t.bytes;
    for (const [k, v] of cache) {
      if (held <= maxBytes) break;
      cache.delete(k);
      held -= v.bytes;
    }
  };
  async function trees(shas: readonly string[]): Promise<(ParsedTree | undefined)[]> {
    const out: (ParsedTree | undefined)[] = shas.map((s) => {
      const hit = cache.get(s);
      if (hit) {
        // Refresh its place in the LRU order.
        cache.delete(s);
        cache.set(s, hit);
      }
      return hit;
    });
    const missing = [...new Set(shas.filter((_, i) => !out[i]))];
    if (missing.length > 0) {
      const read = await reader.contents(missing, MAX_TREE_BYTES);
      const got = new Map<string, ParsedTree>();
      read.forEach((r, i) => {
        if (r.kind === 'object' && r.type === 'tree') {
          const t = parseTreeObject(r.bytes, r.sha.length / 2);
          got.set(missing[i]!, t);
          remember(missing[i]!, t);
        } else if (r.kind === 'too_large') {
          throw new Error('tree object larger than the reader parses');
        }
      });
      shas.forEach((s, i) => {
        out[i] ??= got.get(s);
      });
    }
    return out;
  }
  return {
    trees,
    tree: async (sha) => (await trees([sha]))[0],
    async lookup(root, segments) {
      let entry: RawTreeEntry | undefined = { mode: '040000', rawName: '', sha: root };
      for (const seg of segments) {
        if (entry.mode !== '040000') return undefined;
        const t = await this.tree(entry.sha);
        entry = t?.byName.get(rawSegment(seg));
        if (!entry) return undefined;
      }
      return entry;
    },
  };
}

/** The fields of a raw commit object git-blinder serves. */
export interface ParsedCommit {
  readonly tree: string;
  readonly parents: readonly string[];
  readonly author: { readonly name: string; readonly email: string; readonly epoch: string };
  readonly committer: { readonly name: string; readonly email: string; readonly epoch: string };
  /** Set when the commit declares a message encoding (git log would re-encode it; callers fall back to git). */
  readonly encoding?: string;
  readonly message: string;
}

/** Parses `Name <email> <epoch> <tz>` the way git's %an/%ae/%at read it. */
function person(line: string): ParsedCommit['author'] {
  const lt = line.indexOf('<');
  const gt = lt < 0 ? -1 : line.indexOf('>', lt);
  if (lt < 0 || gt < lt) return { name: line.trim(), email: '', epoch: '0' };
  const epoch =
    line
      .slice(gt + 1)
      .trim()
      .split(' ')[0] ?? '0';
  // As git's split_ident_line: the name keeps leading spaces, loses trailing ones; the email ends at the first '>'.
  return { name: line.slice(0, lt).trimEnd(), email: line.slice(lt + 1, gt), epoch: /^\d+$/.test(epoch) ? epoch : '0' };
}

/** Parses a raw commit object (headers, a blank line, the message). */
export function parseCommitObject(buf: Buffer): ParsedCommit {
  const text = buf.toString('utf8');
  const split = text.indexOf('\n\n');
  const head = split < 0 ? text : text.slice(0, split);
  let tree = '';
  const parents: string[] = [];
  let author = person('');
  let committer = person('');
  let encoding: string | undefined;
  for (const line of head.split('\n')) {
    if (line.startsWith(' ')) continue; // continuation of a multi-line header (gpgsig, mergetag)
    const sp = line.indexOf(' ');
    const key = line.slice(0, sp);
    const value = line.slice(sp + 1);
    if (key === 'tree') tree = value;
    else if (key === 'parent') parents.push(value);
    else if (key === 'author') author = person(value);
    else if (key === 'committer') committer = person(value);
    else if (key === 'encoding') encoding = value;
  }
  const message = split < 0 ? '' : text.slice(split + 2);
  return encoding === undefined
    ? { tree, parents, author, committer, message }
    : { tree, parents, author, committer, encoding, message };
}
