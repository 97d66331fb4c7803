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

/**
 * What a glob reads at its prefix, as a git pathspec sees it (the prefix matches the file itself and all below it):
 * `below` — everything below the prefix (`dir/**`); `file` — the literal file only; `some` — part of what lies below.
 */
type Reach = 'below' | 'file' | 'some';

/** Splits a glob into its literal leading segments and what it reads there. */
function prefixOf(glob: string): { prefix: string; reach: Reach } {
  const segments = glob.split('/');
  const literal: string[] = [];
  for (const s of segments) {
    if (!isLiteralSegment(s)) break;
    literal.push(s);
  }
  const prefix = literal.join('/');
  const rest = segments.slice(literal.length);
  const reach: Reach = rest.length === 0 ? 'file' : rest.length === 1 && rest[0] === '**' ? 'below' : 'some';
  return { prefix, reach };
}

/** `below` covers anything; otherwise a literal file next to any other glob at the same prefix reads only part of it. */
function merge(a: Reach | undefined, b: Reach): Reach {
  if (a === undefined || a === b) return b;
  return a === 'below' || b === 'below' ? 'below' : 'some';
}

/** Derives history prefixes from read globs (brace alternatives expanded first). */
export function historyPrefixes(readGlobs: readonly string[]): HistoryPrefixes {
  const found = new Map<string, Reach>();
  const unprefixed: string[] = [];
  for (const glob of readGlobs) {
    for (const g of expandBraces(glob)) {
      const { prefix, reach } = prefixOf(g);
      if (prefix === '') unprefixed.push(glob);
      found.set(prefix, merge(found.get(prefix), reach));
    }
  }
  if (found.size === 0) return { prefixes: [], exact: true, unprefixed: [] };
  const sorted = [...found.keys()].sort();
  const kept: string[] = [];
  for (const p of sorted) {
    const parent = kept.find((k) => isWithin(p, k));
    if (parent !== undefined) {
      // A prefix below a kept one adds nothing to the query. It only reads part of what lies below the kept one,
      // so a kept literal file with globs below it (`a` and `a/*.md`) now reads "some" of `a/`.
      found.set(parent, merge(found.get(parent), 'some'));
      continue;
    }
    kept.push(p);
  }
  let exact = true;
  // A kept prefix is exact when it reads all of what its pathspec matches: everything below, or its one file.
  // Known wart: a file named like a `dir/**` prefix (or a dir named like a literal file) in history still matches.
  for (const k of kept) exact &&= found.get(k) !== 'some';
  return { prefixes: kept, exact: kept.includes('') ? false : exact, unprefixed: [...new Set(unprefixed)] };
}
