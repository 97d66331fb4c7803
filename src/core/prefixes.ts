import { expandBraces, isLiteralSegment } from './glob.js';
import { isWithin } from './path.js';

/** How history can be asked for by path, derived from read globs. */
export interface HistoryPrefixes {
  /**
   * Disjoint, deduplicated path prefixes (files or directories), sorted. `['']` means the whole repository:
   * at least one glob has no static prefix. Empty means nothing is readable.
   */
  readonly prefixes: readonly string[];
  /**
   * True when every commit touching a prefix is known to touch a readable file (each prefix is a literal file or
   * `dir/**`). When false, candidates must be verified file by file.
   */
  readonly exact: boolean;
  /** Globs with no static prefix (such as `**\/*.md`): the reason `prefixes` is `['']`. */
  readonly unprefixed: readonly string[];
}

/** Splits a glob into its literal leading segments and whether the glob is exactly "everything below them". */
function prefixOf(glob: string): { prefix: string; exact: boolean } {
  const segments = glob.split('/');
  const literal: string[] = [];
  for (const s of segments) {
    if (!isLiteralSegment(s)) break;
    literal.push(s);
  }
  const prefix = literal.join('/');
  const rest = segments.slice(literal.length);
  const exact = rest.length === 0 || (rest.length === 1 && rest[0] === '**');
  return { prefix, exact };
}

/** Derives history prefixes from read globs (brace alternatives expanded first). */
export function historyPrefixes(readGlobs: readonly string[]): HistoryPrefixes {
  const found = new Map<string, boolean>();
  const unprefixed: string[] = [];
  for (const glob of readGlobs) {
    for (const g of expandBraces(glob)) {
      const { prefix, exact } = prefixOf(g);
      if (prefix === '') unprefixed.push(glob);
      found.set(prefix, (found.get(prefix) ?? false) || exact);
    }
  }
  if (found.size === 0) return { prefixes: [], exact: true, unprefixed: [] };
  const sorted = [...found.keys()].sort();
  const kept: string[] = [];
  let exact = true;
  for (const p of sorted) {
    const parent = kept.find((k) => isWithin(p, k));
    if (parent !== undefined) {
      // A prefix below a kept one adds nothing to the query; only the kept one's exactness counts.
      continue;
    }
    kept.push(p);
  }
  for (const k of kept) exact &&= found.get(k) ?? false;
  return { prefixes: kept, exact: kept.includes('') ? false : exact, unprefixed: [...new Set(unprefixed)] };
}
