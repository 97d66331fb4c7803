import { braceExpand, GLOBSTAR, Minimatch, type MinimatchOptions } from 'minimatch';
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

type Part = Minimatch['set'][number][number];

/** One brace alternative of one glob, as minimatch parsed it, with the minimatch object that judges it. */
interface Pattern {
  readonly mm: Minimatch;
  readonly parts: readonly Part[];
}

/**
 * A fast shape, judged on the raw path string when the path is clean (see `isClean`): `head/**` (`tail` undefined)
 * or `head/**\/tail` with one tail segment (`head` may be empty: `**\/tail`).
 */
interface FastShape {
  /** The literal head joined with `/`, plus a trailing `/` ('' when there is no head). */
  readonly head: string;
  readonly tail: ((segment: string) => boolean) | undefined;
}

/**
 * Compiles globs (already validated) into a matcher. The answers are minimatch's own, glob by glob (`match` and
 * `match(dir, true)`); what changes is the cost. Fully literal alternatives are a `Set` lookup; on a clean path (no
 * empty, `.` or `..` segment: what `normalizePath` lets through and what git trees hold) the common shapes
 * `literal/head/**` and `head/**\/name` are string comparisons on the path as it is. Anything else is split once (not
 * once per glob), and only alternatives whose first literal segment is the path's are tried, through minimatch's
 * `matchOne`, which is exactly what `match` does after splitting.
 */
export function compileGlobs(globs: readonly string[]): GlobSet {
  const compiled = globs.map((g) => new Minimatch(g, OPTIONS));
  // `match` answers an empty pattern with `f === ''` before looking at its set.
  const hasEmpty = compiled.some((m) => m.empty);
  const live = compiled.filter((m) => !m.empty);
  const literal = new Set<string>();
  const fast: FastShape[] = [];
  const byFirst = new Map<string, Pattern[]>();
  const anyFirst: Pattern[] = [];
  // Alternatives that are neither literal nor a fast shape: on a clean path only these need the split.
  let slowCount = 0;
  for (const mm of live) {
    for (const parts of mm.set) {
      // A key with `//` would not be what a split path rejoins to; such alternatives are left to `matchOne`.
      const key = parts.every((p) => typeof p === 'string') ? parts.join('/') : undefined;
      const shape = fastShape(parts);
      if (key !== undefined && !key.includes('//')) literal.add(key);
      else if (shape !== undefined) fast.push(shape);
      else slowCount++;
      const first = parts[0];
      const pattern = { mm, parts };
      if (typeof first === 'string') {
        const list = byFirst.get(first) ?? [];
        byFirst.set(first, list);
        list.push(pattern);
      } else anyFirst.push(pattern);
    }
  }

  const viaMatchOne = (path: string, partial: boolean): boolean => {
    const ff = splitLikeMinimatch(path);
    const candidates = byFirst.get(ff[0] ?? '');
    if (candidates !== undefined)
      for (const p of candidates) if (p.mm.matchOne(ff, p.parts as Part[], partial)) return true;
    for (const p of anyFirst) if (p.mm.matchOne(ff, p.parts as Part[], partial)) return true;
    return false;
  };
  const matches = (path: string): boolean => {
    if (hasEmpty && path === '') return true;
    if (live.length === 0) return false;
    if (literal.has(path)) return true;
    if (!isClean(path)) return viaMatchOne(path, false);
    for (const f of fast) if (fastMatches(f, path)) return true;
    return slowCount > 0 && viaMatchOne(path, false);
  };
  return {
    globs: [...globs],
    matches,
    couldContain: (dir) => {
      if (dir === '') return true;
      if (live.length === 0) return false;
      if (dir === '/') return true;
      return viaMatchOne(dir, true);
    },
  };
}

// minimatch's `slashSplit` on POSIX: runs of `/` count as one separator.
function splitLikeMinimatch(path: string): string[] {
  return path.includes('//') ? path.split(/\/+/) : path.split('/');
}

/** True when no segment is empty, `.` or `..` (so `**` may swallow any run of segments). */
function isClean(path: string): boolean {
  const n = path.length;
  if (n === 0) return false;
  let start = 0;
  for (let i = 0; i <= n; i++) {
    if (i < n && path.charCodeAt(i) !== 0x2f) continue;
    const len = i - start;
    if (len === 0) return false;
    if (len <= 2 && path.charCodeAt(start) === 0x2e && (len === 1 || path.charCodeAt(start + 1) === 0x2e)) return false;
    start = i + 1;
  }
  return true;
}

// `a/b/**` or `a/**/t` / `**/t` (literal head, one globstar, at most one tail segment), else undefined.
function fastShape(parts: readonly Part[]): FastShape | undefined {
  const star = parts.indexOf(GLOBSTAR);
  if (star < 0 || parts.lastIndexOf(GLOBSTAR) !== star || star < parts.length - 2) return undefined;
  const head = parts.slice(0, star);
  if (!head.every((p): p is string => typeof p === 'string')) return undefined;
  const headText = head.length === 0 ? '' : `${head.join('/')}/`;
  if (head.some((p) => p === '' || p === '.' || p === '..')) return undefined;
  const t = parts[star + 1];
  if (t === undefined) return head.length === 0 ? undefined : { head: headText, tail: undefined };
  if (t === GLOBSTAR || t === '') return undefined;
  if (typeof t === 'string') return { head: headText, tail: (s) => s === t };
  return { head: headText, tail: (s) => t.test(s) };
}

// What minimatch's globstar match answers for these shapes on a clean path (non-partial, dot: true):
// `head/**`: the head, then at least one segment; `head/**\/t`: the head, then zero or more segments, then a last
// segment matching t that is not part of the head.
function fastMatches(f: FastShape, path: string): boolean {
  if (f.head !== '' && !path.startsWith(f.head)) return false;
  if (f.tail === undefined) return path.length > f.head.length;
  const last = path.lastIndexOf('/');
  if (last + 1 < f.head.length) return false;
  return f.tail(last < 0 ? path : path.slice(last + 1));
}

/** A compiled test of one path segment (no `/`) against a glob, with the answers of `compileGlobs([glob]).matches`. */
export type SegmentTest = (segment: string) => boolean;

// minimatch's shortcut shapes (`parse`): a segment of stars only, or stars then a plain tail, get a string test that
// replaces the RegExp's; mirrored here so the answers are the ones `match` gives.
const STAR_RE = /^\*+$/;
const STAR_DOT_EXT_RE = /^\*+([^+@!?*[(]*)$/;
// A plain head then stars (`id_rsa*`): minimatch compiles it to `^head[^/]*?$`, i.e. "starts with head" for a segment.
// The head must hold something other than dots: a leading dot segment gets dot-segment guards we do not mirror.
const HEAD_STAR_RE = /^([^*?[\](){}!+@\\]*[^*?[\](){}!+@\\.][^*?[\](){}!+@\\]*)\*+$/;

/**
 * Compiles a glob meant to be tested on single path segments (a basename, one directory name) into one test:
 * literal alternatives in a `Set`, `*tail` alternatives by their last character, `head*` by their first, and the rest
 * through minimatch. Same answers as `compileGlobs([glob]).matches(segment)` for any string without `/`.
 */
export function compileSegmentTest(glob: string): SegmentTest {
  const mm = new Minimatch(glob, OPTIONS);
  if (mm.empty) return (s) => s === '';
  const literals = new Set<string>();
  const suffixes = new Map<number, string[]>();
  const prefixes = new Map<number, string[]>();
  const tests: ((s: string) => boolean)[] = [];
  let anyNonEmpty = false;
  for (const parts of mm.set) {
    const only = parts[0];
    if (parts.length !== 1 || only === undefined || only === GLOBSTAR) {
      const whole = parts as Part[];
      tests.push((s) => mm.matchOne([s], whole, false));
      continue;
    }
    if (typeof only === 'string') {
      literals.add(only);
      continue;
    }
    const source = only._glob ?? '';
    const ext = STAR_RE.test(source) ? undefined : STAR_DOT_EXT_RE.exec(source)?.[1];
    const head = HEAD_STAR_RE.exec(source)?.[1];
    if (STAR_RE.test(source)) anyNonEmpty = true;
    else if (ext !== undefined && ext !== '') pushBy(suffixes, ext.charCodeAt(ext.length - 1), ext);
    else if (head !== undefined) pushBy(prefixes, head.charCodeAt(0), head);
    else tests.push((s) => only.test(s));
  }
  return (s) => {
    if (literals.has(s)) return true;
    if (anyNonEmpty && s.length !== 0 && s !== '.' && s !== '..') return true;
    if (s.length !== 0) {
      const ends = suffixes.get(s.charCodeAt(s.length - 1));
      if (ends !== undefined) for (const e of ends) if (s.endsWith(e)) return true;
      const starts = prefixes.get(s.charCodeAt(0));
      if (starts !== undefined) for (const h of starts) if (s.startsWith(h)) return true;
    }
    for (const t of tests) if (t(s)) return true;
    return false;
  };
}

function pushBy(map: Map<number, string[]>, key: number, value: string): void {
  const list = map.get(key) ?? [];
  map.set(key, list);
  list.push(value);
}

/** Expands `{a,b}` alternatives the way matching does, so prefix derivation sees every branch. */
export function expandBraces(glob: string): string[] {
  return braceExpand(glob, OPTIONS);
}

/** True when a path segment has no glob magic (it can only match itself). */
export function isLiteralSegment(segment: string): boolean {
  return !/[*?[\]{}()!+@]/.test(segment);
}
