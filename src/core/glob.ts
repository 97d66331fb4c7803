import { braceExpand, Minimatch, type MinimatchOptions } from 'minimatch';
import { normalizePath } from './path.js';
import { fail, ok, type Result } from './result.js';

// Pinned once, here only: dotfiles match, `!` and `#` are literal, POSIX semantics whatever the host, case-sensitive.
const OPTIONS: MinimatchOptions = { dot: true, nonegate: true, nocomment: true, platform: 'linux', nocase: false };

/** A compiled, immutable list of globs. */
export interface GlobSet {
  readonly globs: readonly string[];
  /** True when a file at `path` is matched by at least one glob. */
  matches(path: string): boolean;
  /** True when the directory at `dir` could contain a matched file ('' is the root and always could). */
  couldContain(dir: string): boolean;
}

/** Checks one glob's shape: relative, forward slashes, no `.`/`..`, no empty segment. */
export function validateGlob(glob: unknown): Result<string, 'invalid_glob'> {
  if (typeof glob !== 'string' || glob === '') return fail('invalid_glob', 'A glob must be a non-empty string.');
  // Globs are paths with wildcards: the same structural rules apply, wildcards aside.
  const shape = normalizePath(glob);
  if (!shape.ok) return fail('invalid_glob', `Invalid glob "${glob}": ${shape.message}`);
  // Matching and history prefixes see the brace alternatives, so each one must be a valid path shape too
  // (`{..,x}/y` and `{,a}/x` pass the check above but expand to `../y` and `/x`).
  for (const alternative of expandBraces(glob)) {
    const alt = normalizePath(alternative);
    if (!alt.ok) return fail('invalid_glob', `Invalid glob "${glob}" (alternative "${alternative}"): ${alt.message}`);
  }
  return ok(glob);
}

/** Compiles globs (already validated) into a matcher. */
export function compileGlobs(globs: readonly string[]): GlobSet {
  const compiled = globs.map((g) => new Minimatch(g, OPTIONS));
  return {
    globs: [...globs],
    matches: (path) => compiled.some((m) => m.match(path)),
    couldContain: (dir) => dir === '' || compiled.some((m) => m.match(dir, true)),
  };
}

/** Expands `{a,b}` alternatives the way matching does, so prefix derivation sees every branch. */
export function expandBraces(glob: string): string[] {
  return braceExpand(glob, OPTIONS);
}

/** True when a path segment has no glob magic (it can only match itself). */
export function isLiteralSegment(segment: string): boolean {
  return !/[*?[\]{}()!+@]/.test(segment);
}
