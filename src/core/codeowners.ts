// Who owns a subtree, from a CODEOWNERS file's text. Pure. Only the file's own lines are read; the caller serves it
// only when the CODEOWNERS file itself is readable, so owners never leak out of a hidden file.
import { isWithin } from './path.js';

/** The CODEOWNERS locations GitHub reads, in its order. */
export const CODEOWNERS_PATHS: readonly string[] = ['.github/CODEOWNERS', 'CODEOWNERS', 'docs/CODEOWNERS'];

export interface Ownership {
  readonly pattern: string;
  readonly owners: readonly string[];
}

/**
 * A pattern's literal directory, or undefined when it has wildcards inside (those are not judged: a known gap, they
 * own nothing here rather than something wrong). `*` alone owns everything ('').
 */
function literalOf(pattern: string): string | undefined {
  if (pattern === '*' || pattern === '/' || pattern === '/**' || pattern === '**') return '';
  let p = pattern.startsWith('/') ? pattern.slice(1) : pattern;
  p = p
    .replace(/\/\*\*$/, '')
    .replace(/\/\*$/, '')
    .replace(/\/$/, '');
  return p === '' || /[*?[\]!\\]/.test(p) ? undefined : p;
}

/**
 * The owners of `scope` ('' = the whole repository): the last line whose pattern names the scope or a directory above
 * it wins, as in GitHub; a pattern deeper than the scope never owns it. Undefined when no line matches.
 */
export function ownersOf(text: string, scope: string): Ownership | undefined {
  let found: Ownership | undefined;
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const [pattern, ...owners] = line.split(/\s+/);
    if (pattern === undefined) continue;
    const lit = literalOf(pattern);
    if (lit === undefined) continue;
    const comment = owners.findIndex((o) => o.startsWith('#'));
    if (isWithin(scope, lit)) found = { pattern, owners: comment < 0 ? owners : owners.slice(0, comment) };
  }
  return found;
}
