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
  /** `matches` for a path `normalizePath` accepted (so clean, or ''): the same answer, without re-checking. */
  matchesNormalized(path: string): boolean;
  /** True when the directory at `dir` could contain a matched file ('' is the root and always could). */
  couldContain(dir: string): boolean;
  /**
   * `matches`, settled once for the files directly inside `dir`: the test answers `matches(path)` for every `path`
   * whose parent is `dir` (`parentOf(path) === dir`), looking only at what the directory leaves open (most often the
   * name, or nothing). For another path its answer means nothing.
   */
  inDir(dir: string): PathTest;
}

/** A test of one whole path. */
export type PathTest = (path: string) => boolean;

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
  readonly tail: TailTest | undefined;
}

/** A test of a clean path's last segment, on the whole path (most tails need no slice). */
type TailTest = (path: string) => boolean;

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
  // Literals by first character: a path that cannot be one is not hashed (request paths are fresh strings).
  const literalFirst = firstCharIndex([...literal], (l) => l);
  const mayBeLiteral = (path: string): boolean => {
    const c = path.length === 0 ? NOT_ASCII : path.charCodeAt(0);
    return (c < 128 ? literalFirst.ascii[c] !== undefined : literalFirst.other.length > 0) && literal.has(path);
  };
  // Fast shapes by their head's first character (a path starting elsewhere cannot start with the head).
  const fastFirst = firstCharIndex(
    fast.filter((f) => f.head !== ''),
    (f) => f.head,
  );
  const headless = fast.filter((f) => f.head === '');
  const anyFast = (path: string): boolean => {
    const c = path.charCodeAt(0);
    const list = c < 128 ? fastFirst.ascii[c] : fastFirst.other;
    if (list !== undefined) for (const f of list) if (fastMatches(f, path)) return true;
    for (const f of headless) if (fastMatches(f, path)) return true;
    return false;
  };
  const matches = (path: string): boolean => {
    if (hasEmpty && path === '') return true;
    if (live.length === 0) return false;
    if (mayBeLiteral(path)) return true;
    if (!isClean(path)) return viaMatchOne(path, false);
    return anyFast(path) || (slowCount > 0 && viaMatchOne(path, false));
  };
  const matchesNormalized = (path: string): boolean => {
    if (path === '') return matches(path);
    if (live.length === 0) return false;
    return mayBeLiteral(path) || anyFast(path) || (slowCount > 0 && viaMatchOne(path, false));
  };
  const hasLiterals = literal.size > 0;
  // The parents of literal alternatives: a directory none of them sits in needs no `Set` lookup per file.
  const literalParents = new Set([...literal].map((l) => l.slice(0, Math.max(l.lastIndexOf('/'), 0))));
  const inDir = (dir: string): PathTest => {
    // The root's files have no parent part to settle; a directory that is not clean leaves minimatch's split rules.
    if (dir === '' || live.length === 0 || !isClean(dir)) return matches;
    const start = dir.length + 1;
    const slashed = `${dir}/`;
    // Which fast shapes the directory already satisfies: `head/**` whole (`all`), `head/**\/t` up to the name (a
    // tail test). A head that is not a prefix of `dir/` cannot be one of `dir/name` either (it ends with `/`).
    let all = false;
    const tails: TailTest[] = [];
    for (const f of fast) {
      if (f.head !== '' && !slashed.startsWith(f.head)) continue;
      if (f.tail === undefined) all = true;
      else tails.push(f.tail);
    }
    const literals = hasLiterals && literalParents.has(dir);
    // Below, `path` is `dir/name`: clean exactly when the name is (else `matches` takes minimatch's own route).
    if (all) return (path) => isCleanName(path, start) || matches(path);
    if (!literals && tails.length === 0 && slowCount === 0) return (path) => !isCleanName(path, start) && matches(path);
    return (path) => {
      if (!isCleanName(path, start)) return matches(path);
      if (literals && literal.has(path)) return true;
      for (const t of tails) if (t(path)) return true;
      return slowCount > 0 && viaMatchOne(path, false);
    };
  };
  return {
    globs: [...globs],
    matches,
    matchesNormalized,
    couldContain: (dir) => {
      if (dir === '') return true;
      if (live.length === 0) return false;
      if (dir === '/') return true;
      return viaMatchOne(dir, true);
    },
    inDir,
  };
}

const NOT_ASCII = 128;

/** Items listed under the first character of their key: ASCII in a table, anything else (or '') in one list. */
function firstCharIndex<T>(items: readonly T[], key: (item: T) => string): { ascii: (T[] | undefined)[]; other: T[] } {
  const ascii: (T[] | undefined)[] = new Array<T[] | undefined>(128).fill(undefined);
  const other: T[] = [];
  for (const item of items) {
    const k = key(item);
    const c = k.length === 0 ? NOT_ASCII : k.charCodeAt(0);
    if (c >= 128) other.push(item);
    else (ascii[c] ??= []).push(item);
  }
  return { ascii, other };
}

// minimatch's `slashSplit` on POSIX: runs of `/` count as one separator.
function splitLikeMinimatch(path: string): string[] {
  return path.includes('//') ? path.split(/\/+/) : path.split('/');
}

/** True when no segment is empty, `.` or `..` (so `**` may swallow any run of segments). */
function isClean(path: string): boolean {
  const n = path.length;
  if (n === 0 || path.charCodeAt(0) === 0x2f || path.charCodeAt(n - 1) === 0x2f || path.includes('//')) return false;
  // Only a dot can start a `.` or `..` segment: visit the dots (most paths have one or two), not every character.
  for (let i = path.indexOf('.'); i >= 0; i = path.indexOf('.', i + 1)) {
    if (i !== 0 && path.charCodeAt(i - 1) !== 0x2f) continue;
    const next = i + 1 < n ? path.charCodeAt(i + 1) : 0x2f;
    if (next === 0x2f) return false;
    if (next === 0x2e && (i + 2 >= n || path.charCodeAt(i + 2) === 0x2f)) return false;
  }
  return true;
}

/** True when the segment from `start` to the end of `path` is not empty, `.` or `..` (`path` has no `/` there). */
function isCleanName(path: string, start: number): boolean {
  const len = path.length - start;
  if (len <= 0) return false;
  return len > 2 || path.charCodeAt(start) !== 0x2e || (len === 2 && path.charCodeAt(start + 1) !== 0x2e);
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
  // `**` alone (no head) is every clean path: the commonest read glob, so it must not take the split route.
  if (t === undefined) return { head: headText, tail: undefined };
  if (t === GLOBSTAR || t === '') return undefined;
  return { head: headText, tail: tailTest(t) };
}

// The last segment's test, on the whole path. A literal is compared in place; minimatch's own `*ext` shortcut
// (`f.endsWith(ext)` with dot: true) holds on the whole path too, since `ext` has no `/`; the rest test the slice.
function tailTest(t: Exclude<Part, typeof GLOBSTAR>): TailTest {
  if (typeof t === 'string')
    return (path) =>
      path.endsWith(t) && (path.length === t.length || path.charCodeAt(path.length - t.length - 1) === 0x2f);
  const source = t._glob ?? '';
  const ext = STAR_RE.test(source) ? undefined : STAR_DOT_EXT_RE.exec(source)?.[1];
  if (ext !== undefined && ext !== '') return (path) => path.endsWith(ext);
  return (path) => t.test(path.slice(path.lastIndexOf('/') + 1));
}

// What minimatch's globstar match answers for these shapes on a clean path (non-partial, dot: true):
// `head/**`: the head, then at least one segment; `head/**\/t`: the head, then zero or more segments, then a last
// segment matching t that is not part of the head. A path that starts with the head (which ends with `/`) has its
// last segment after the head, so only the tail is left to test.
function fastMatches(f: FastShape, path: string): boolean {
  if (f.head !== '' && !path.startsWith(f.head)) return false;
  return f.tail === undefined ? path.length > f.head.length : f.tail(path);
}

/** A compiled test of one path segment (no `/`) against a glob, with the answers of `compileGlobs([glob]).matches`. */
export type SegmentTest = (segment: string) => boolean;

/**
 * A segment test applied to the last segment of `path`, which starts at `start` (0, or just after the last `/`):
 * the same answer as the segment test on `path.slice(start)`, mostly found without slicing or hashing it.
 */
export type NameTest = (path: string, start: number) => boolean;

// minimatch's shortcut shapes (`parse`): a segment of stars only, or stars then a plain tail, get a string test that
// replaces the RegExp's; mirrored here so the answers are the ones `match` gives.
const STAR_RE = /^\*+$/;
const STAR_DOT_EXT_RE = /^\*+([^+@!?*[(]*)$/;
// A plain head then stars (`id_rsa*`): minimatch compiles it to `^head[^/]*?$`, i.e. "starts with head" for a segment.
// The head must hold something other than dots: a leading dot segment gets dot-segment guards we do not mirror.
const HEAD_STAR_RE = /^([^*?[\](){}!+@\\]*[^*?[\](){}!+@\\.][^*?[\](){}!+@\\]*)\*+$/;
// Stars, a plain middle, stars (`*.sqlite*`): minimatch (dot: true) compiles it to
// `^(?!(?:^|\/)\.\.?(?:$|\/))[^/]*?mid[^/]*?$`, i.e. "holds mid" for a segment that is not `.` or `..` (its own `*.*`
// shortcut says the same).
const STAR_MID_STAR_RE = /^\*+([^*?[\](){}!+@\\]+)\*+$/;

/**
 * Compiles a glob meant to be tested on single path segments (a basename, one directory name) into one test:
 * literal alternatives in a `Set`, `*tail` alternatives by their last character, `head*` by their first, `*mid*` by
 * `includes`, and the rest through minimatch. Same answers as `compileGlobs([glob]).matches(segment)` for any string
 * without `/`.
 */
export function compileSegmentTest(glob: string): SegmentTest {
  const test = compileNameTest(glob);
  return (s) => test(s, 0);
}

/**
 * `compileSegmentTest` on the last segment of a path (see `NameTest`). The literals' first characters are kept in a
 * table, so a name that cannot be one is not sliced and hashed; every other shape is tested in place (a `*tail`,
 * `head*` or `*mid*` piece holds no `/`, so where it matches lies inside the name).
 */
export function compileNameTest(glob: string): NameTest {
  const mm = new Minimatch(glob, OPTIONS);
  if (mm.empty) return (path, start) => path.length === start;
  const literals = new Set<string>();
  const suffixes = new Map<number, string[]>();
  const prefixes = new Map<number, string[]>();
  const middles: string[] = [];
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
    const middle = STAR_MID_STAR_RE.exec(source)?.[1];
    if (STAR_RE.test(source)) anyNonEmpty = true;
    else if (ext !== undefined && ext !== '') pushBy(suffixes, ext.charCodeAt(ext.length - 1), ext);
    else if (head !== undefined) pushBy(prefixes, head.charCodeAt(0), head);
    else if (middle !== undefined) middles.push(middle);
    else tests.push((s) => only.test(s));
  }
  // First characters of the literals (ASCII; any other first character, or an empty literal, always looks).
  const firsts = new Uint8Array(128);
  let lookAlways = false;
  for (const l of literals) {
    const c = l.length === 0 ? 128 : l.charCodeAt(0);
    if (c < 128) firsts[c] = 1;
    else lookAlways = true;
  }
  const hasLiterals = literals.size > 0;
  return (path, start) => {
    const len = path.length - start;
    if (hasLiterals) {
      const c = len === 0 ? 128 : path.charCodeAt(start);
      if ((c < 128 ? firsts[c] === 1 : lookAlways || len === 0) && literals.has(path.slice(start))) return true;
    }
    if (len !== 0) {
      const dots = len <= 2 && path.charCodeAt(start) === 0x2e && (len === 1 || path.charCodeAt(start + 1) === 0x2e);
      if (anyNonEmpty && !dots) return true;
      const ends = suffixes.get(path.charCodeAt(path.length - 1));
      if (ends !== undefined) for (const e of ends) if (path.endsWith(e)) return true;
      const starts = prefixes.get(path.charCodeAt(start));
      if (starts !== undefined) for (const h of starts) if (path.startsWith(h, start)) return true;
      if (!dots) for (const m of middles) if (path.indexOf(m, start) >= 0) return true;
    }
    if (tests.length === 0) return false;
    const s = path.slice(start);
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
