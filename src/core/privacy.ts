import * as z from 'zod/v4';
import {
  compileGlobs,
  compileNameTest,
  compileSegmentTest,
  expandBraces,
  isLiteralSegment,
  validateGlob,
  type NameTest,
  type PathTest,
  type SegmentTest,
} from './glob.js';
import { canReadNormalized, readerIn, withReadForms, type Scope } from './scope.js';

/**
 * Built-in privacy zones: secret and data files that are never served, even inside a read glob.
 *
 * Patterns use the perimeter glob dialect (anchored at the repository root, so "any depth" is spelled `**\/`), but
 * they are matched **case-insensitively**: a committed `.ENV` is the live `.env` on a macOS or Windows checkout, and
 * `ID_RSA`, `Prod.DB` or `Credentials.json` are as secret as their lower-case spellings. Hiding too much costs an
 * agent one file; missing one case variant leaks it (Gumi-MCP learned this with `DATA/`).
 *
 * A pattern ending in `/**` also hides the directory itself: `**\/.git/**` makes `.git` unlistable, not an empty
 * directory that hints at what it holds.
 *
 * Decisions (see the tests for the tables):
 * - `.env.example`, `.env.sample`, `.env.template`, `.env.dist` (also `.env.<name>.example` …) stay readable: they are
 *   made to be committed and shared, they are how an agent learns which settings exist, and hiding them breaks the
 *   ordinary "add a setting" task. An operator who distrusts them adds `**\/.env.example` as an extra pattern: the
 *   exemption only ever applies to the built-in env rule, never to an extra pattern.
 * - `.envrc` (direnv) and `*.env` (docker `env_file`) are hidden: they routinely export real credentials.
 *   Look-alikes `env.txt`, `environment.ts`, `env/`, `.envoy.yaml` stay visible.
 * - SSH identities `id_rsa*`, `id_dsa*`, `id_ecdsa*`, `id_ed25519*` are hidden **including `*.pub`**: nothing in code
 *   work needs a personal public key, its comment usually carries `user@host`, and an exemption would be one more
 *   look-alike rule to get wrong (`id_rsa.pub.bak`, a private key saved as `.pub`).
 * - Public certificates (`*.crt`, `*.cer`) stay readable; `*.pem` is hidden because the extension does not say whether
 *   the file holds a certificate or a key.
 * - Terraform state (`*.tfstate`) is hidden: it stores provider secrets in clear text.
 * - `credentials*` is a prefix on purpose (issue 19): `credentials.csv` is the AWS console's key download, and a
 *   list of exact names missed it. A `credentials.md` or `credentials-guide.md` is hidden with it: one document lost
 *   is the price of not chasing every tool's file name.
 *
 * SPEC §4.7 lists exactly these patterns (without the `**\/` prefix, a directory as `name/`); a test parses that list
 * and fails when the two drift apart.
 */
export const DEFAULT_PRIVACY_PATTERNS: readonly string[] = [
  // Environment files.
  '**/.env',
  '**/.env.*',
  '**/.envrc',
  '**/*.env',
  // Private keys, key stores and certificate bundles.
  '**/*.pem',
  '**/*.key',
  '**/*.p12',
  '**/*.pfx',
  '**/*.p8',
  '**/*.ppk',
  '**/*.jks',
  '**/*.keystore',
  '**/id_rsa*',
  '**/id_dsa*',
  '**/id_ecdsa*',
  '**/id_ed25519*',
  '**/.ssh/**',
  '**/.gnupg/**',
  // Credential files.
  '**/.npmrc',
  '**/.pypirc',
  '**/.netrc',
  '**/_netrc',
  '**/.pgpass',
  '**/.htpasswd',
  '**/.git-credentials',
  // `credentials*`: the AWS console's `credentials.csv`, gcloud's `credentials.db`, `credentials.json`, backups.
  '**/credentials*',
  // The whole `.aws/` directory: besides `credentials` and `config`, `sso/cache/*.json` and `cli/cache/*.json` hold
  // live session tokens.
  '**/.aws/**',
  '**/.docker/config.json',
  '**/.kube/config',
  '**/secrets.{yml,yaml}',
  '**/*.tfstate',
  '**/*.tfstate.backup',
  // Local databases and their side files.
  '**/*.db',
  // `*.sqlite*`: `.sqlite`, `.sqlite3`, and the copies next to them (`app.sqlite.bak`, `app.sqlite-wal`).
  '**/*.sqlite*',
  '**/*-wal',
  '**/*-shm',
  '**/*-journal',
  // Git's own metadata, at any depth (nested repositories, submodule gitlinks).
  '**/.git/**',
];

// Shared templates exempted from the built-in env rule only (see the decisions above).
const ENV_TEMPLATE_EXEMPTIONS: readonly string[] = [
  '**/.env.{example,sample,template,dist}',
  '**/.env.*.{example,sample,template,dist}',
];
const EXEMPTED_RULE = '**/.env.*';

/** A compiled set of privacy zones: the built-in patterns plus any extras (extras can only add). */
export interface PrivacyZones {
  /** Every effective pattern, defaults first. For operators and logs, never for messages to an agent. */
  readonly patterns: readonly string[];
  /** True when the file (or directory) at `path` must never be served. The root ('') is never private. */
  isPrivate(path: string): boolean;
  /** True when every path at or below `dir` is private, so the directory itself must look missing. */
  hidesDir(dir: string): boolean;
  /**
   * `isPrivate`, settled once for the files directly inside `dir`: the test answers `isPrivate(path)` for every `path`
   * whose parent is `dir`, judging only the name when the patterns allow it (for another path it means nothing).
   */
  inDir(dir: string): PathTest;
}

/** Extra privacy patterns, in the perimeter glob dialect: a perimeter's own, the server's, or both concatenated. */
export interface PrivacyExtras {
  readonly patterns?: readonly string[];
}

/** Zod schema for a list of extra privacy patterns (e.g. a perimeter's `private` field). */
export const PrivacyPatternList = z.array(
  z.string().superRefine((g, ctx) => {
    const r = validateGlob(g);
    if (!r.ok) ctx.addIssue({ code: 'custom', message: r.message });
  }),
);

/**
 * Compiles the privacy zones once (per server configuration and perimeter version, not per call).
 * `extra.patterns` must already be valid globs (`PrivacyPatternList`); they are added to the defaults, never
 * replace them: no configuration can make a default zone readable.
 */
export function compilePrivacy(extra: PrivacyExtras = {}): PrivacyZones {
  const extras = extra.patterns ?? [];
  const patterns = [...new Set([...DEFAULT_PRIVACY_PATTERNS, ...extras])];

  // The template exemption belongs to the built-in env rule only: an operator who lists `**/.env.*` means it all.
  const plain = compileZoneMatcher([...DEFAULT_PRIVACY_PATTERNS.filter((p) => p !== EXEMPTED_RULE), ...extras]);
  const env = compileZoneMatcher([EXEMPTED_RULE]);
  const exempt = compileZoneMatcher(ENV_TEMPLATE_EXEMPTIONS);

  // The last segment of `p` starts at `start`; the three matchers test it in place.
  const fileOne = (p: string, start: number): boolean =>
    plain.file(p, start) || (env.file(p, start) && !exempt.file(p, start));
  const fileOfPath = (p: string): boolean => fileOne(p, p.lastIndexOf('/') + 1);
  const dirOne = (d: string): boolean => plain.dir(d);

  const isPrivate = (path: string): boolean => {
    if (path === '') return false;
    const folded = path.toLowerCase();
    // Windows drops trailing dots and spaces from names (`.env.` opens `.env`): judge both spellings, so this
    // can only ever hide more.
    if (fileOfPath(folded)) return true;
    const trimmed = trimSegments(folded);
    return trimmed !== folded && fileOfPath(trimmed);
  };
  return {
    patterns,
    isPrivate,
    hidesDir(dir) {
      if (dir === '') return false;
      const folded = dir.toLowerCase();
      if (dirOne(folded)) return true;
      const trimmed = trimSegments(folded);
      return trimmed !== folded && dirOne(trimmed);
    },
    inDir(dir) {
      if (dir === '') return isPrivate;
      // Case folding does not cross a `/` (it is neither cased nor case-ignorable), so the folded path is the folded
      // directory, `/`, the folded name. With no directory segment ending in a dot or a space, the trimmed spelling
      // differs only in its name; otherwise (rare) whole paths are judged.
      const folded = dir.toLowerCase();
      if (endsASegmentWithDotOrSpace(folded)) return isPrivate;
      const p = plain.inDir(folded);
      const e = env.inDir(folded);
      const x = exempt.inDir(folded);
      if (p === undefined || e === undefined || x === undefined) return isPrivate;
      const one = (path: string, start: number): boolean => p(path, start) || (e(path, start) && !x(path, start));
      const start = dir.length + 1;
      return (path) => {
        // Below, only the name (from `start`) is looked at, so the directory part need not be folded.
        if (!isFolded(path, start)) {
          const name = path.slice(start).toLowerCase();
          if (one(name, 0)) return true;
          const trimmed = trimSegment(name);
          return trimmed !== name && one(trimmed, 0);
        }
        if (one(path, start)) return true;
        const last = path.charCodeAt(path.length - 1);
        if (path.length === start || (last !== 0x2e && last !== 0x20)) return false;
        const name = path.slice(start);
        const trimmed = trimSegment(name);
        return trimmed !== name && one(trimmed, 0);
      };
    },
  };
}

// True when `toLowerCase` leaves `path` from `start` as it is: ASCII without capitals (anything else is folded).
function isFolded(path: string, start: number): boolean {
  for (let i = start; i < path.length; i++) {
    const c = path.charCodeAt(i);
    if ((c >= 0x41 && c <= 0x5a) || c >= 0x80) return false;
  }
  return true;
}

interface ZoneMatcher {
  /**
   * The path (already case-folded; its last segment starts at `start`) is matched by a pattern, or is the directory
   * a `X/**` pattern hides.
   */
  file(path: string, start: number): boolean;
  /** Every path at or below the directory is matched. */
  dir(dir: string): boolean;
  /**
   * `file` for the paths directly inside `dir` (case-folded, not the root), as a test of their folded name alone (a
   * `NameTest`: it looks at nothing before `start`); or undefined when some pattern needs more of the path than the
   * name and the directory (whole-path patterns, non-literal tails).
   */
  inDir(dir: string): NameTest | undefined;
}

/**
 * Compiles case-folded zone patterns. Same answers as matching each glob (plus each `X/**` stem) against the whole
 * path, but most patterns have a shape that only needs one or two segments, so they are grouped into one brace glob
 * per shape and tested on those segments: the whole default list costs a `Set` lookup or a suffix check per segment
 * (`compileSegmentTest`) instead of forty `**` walks.
 *
 * - `**\/N`     (N one segment): the file name matches N;
 * - `**\/N/**`  (N one segment): any segment matches N (a parent: below it; the last one: the directory itself);
 * - `**\/T`     (T k literal-shaped segments, no `**`): the last k segments match T;
 * - anything else is matched whole, with its stem when it ends in `/**`.
 */
function compileZoneMatcher(globs: readonly string[]): ZoneMatcher {
  const names: string[] = [];
  const segments: string[] = [];
  const suffixes = new Map<number, string[]>();
  const whole: string[] = [];
  const wholeDirs: string[] = [];
  // `part` is the piece of `full` a shape tests (a name, a directory name, a tail). Alternatives are joined into one
  // brace glob below, so braces are expanded first; an alternative that still holds a comma or a brace (`a,b`,
  // `a[,]b`, `\{a,b\}`) cannot be joined, and then the whole pattern is matched as written. Never the piece alone:
  // it is anchored at the root and would hide only the top-level spelling.
  const push = (list: string[], part: string, full: string): void => {
    const alts = expandBraces(part);
    // The shape was read off the unexpanded text: `{a,b/c}` looks like three segments but is one or two, and an
    // alternative may hold a `**`. Only alternatives with the shape's own segment count and no `**` may be grouped.
    const k = part.split('/').length;
    const fits = (a: string): boolean => {
      const segs = a.split('/');
      return segs.length === k && !segs.includes('**');
    };
    if (alts.every(fits) && !alts.some((a) => a.includes(',') || a.includes('{') || a.includes('}')))
      list.push(...alts);
    else if (full.endsWith('/**')) wholeDirs.push(full);
    else whole.push(full);
  };
  for (const raw of globs) {
    const g = raw.toLowerCase();
    const rest = g.startsWith('**/') ? g.slice(3) : undefined;
    const restParts = rest?.split('/') ?? [];
    if (rest !== undefined && !restParts.includes('**') && restParts.length === 1) push(names, rest, g);
    else if (rest !== undefined && restParts.length === 2 && restParts[1] === '**' && restParts[0] !== '**') {
      push(segments, restParts[0] ?? '', g);
    } else if (rest !== undefined && !restParts.includes('**')) {
      const list = suffixes.get(restParts.length) ?? [];
      suffixes.set(restParts.length, list);
      push(list, rest, g);
    } else if (g.endsWith('/**')) wholeDirs.push(g);
    else whole.push(g);
  }
  const nameGlob = braced(names);
  const name = nameGlob === undefined ? undefined : compileNameTest(nameGlob);
  const segment = literalSegments(segments) ?? anySegment(segments);
  const suffix = [...suffixes].map(([k, list]) => [k, literalSuffixes(list, k) ?? anyPath(list)] as const);
  const wholeSet = compileGlobs(whole);
  const dirSet = compileGlobs(wholeDirs);
  const stemSet = compileGlobs(wholeDirs.map((g) => g.slice(0, -'/**'.length)).filter((s) => s !== ''));
  const hasWhole = whole.length > 0;
  const hasDirs = wholeDirs.length > 0;

  const inSegments = (path: string): boolean =>
    segment !== undefined && (typeof segment === 'function' ? anySegmentOf(path, segment) : segment.in(path, 0));
  // The segment test on the last segment alone (from `start`).
  const lastSegment = (path: string, start: number): boolean =>
    segment !== undefined && (typeof segment === 'function' ? segment(path.slice(start)) : segment.in(path, start));
  const dir = (d: string): boolean => inSegments(d) || (hasDirs && (dirSet.matches(d) || stemSet.matches(d)));
  const byName = suffix.every(([, test]) => typeof test !== 'function');
  return {
    file(path, start) {
      if (name !== undefined && name(path, start)) return true;
      for (const [k, test] of suffix) {
        if (typeof test !== 'function') {
          if (test.in(path, 0)) return true;
          continue;
        }
        const tail = lastSegments(path, k);
        if (tail !== undefined && test(tail)) return true;
      }
      return (hasWhole && wholeSet.matches(path)) || dir(path);
    },
    dir,
    inDir(d) {
      // Whole-path patterns and non-literal tails would need the whole path: not settled per directory.
      if (hasWhole || hasDirs || !byName) return undefined;
      // A directory segment matched by a `**/N/**` pattern hides every file inside.
      if (inSegments(d)) return () => true;
      // The literal tails whose leading segments are the directory's last ones leave only their last segment.
      const tailNames = new Set<string>();
      for (const [, test] of suffix) if (typeof test !== 'function') for (const n of test.namesIn(d)) tailNames.add(n);
      const tails = tailNames.size > 0;
      return (path, start) =>
        (name !== undefined && name(path, start)) ||
        (tails && tailNames.has(path.slice(start))) ||
        lastSegment(path, start);
    },
  };
}

/** A test over the whole path that needs no slicing (literal alternatives only). */
interface LiteralScan {
  /** Looks at the path from `from` on (0, or just after a `/`). */
  in(path: string, from: number): boolean;
}

/** Literal tails: also the last segments they accept for the files directly inside a directory. */
interface LiteralTails extends LiteralScan {
  namesIn(dir: string): string[];
}

// Plain names only (what `compileGlobs` would compare with `===`), none empty.
function allLiteral(alternatives: readonly string[], k: number): string[] | undefined {
  const unique = [...new Set(alternatives)];
  if (unique.length === 0) return undefined;
  const plain = unique.every((a) => {
    const parts = a.split('/');
    return parts.length === k && parts.every((p) => p !== '' && isLiteralSegment(p));
  });
  return plain ? unique : undefined;
}

/**
 * `**\/N/**` with literal names: some `/`-separated segment equals one of them (found without splitting). Names are
 * grouped by their first character and only the places holding it are visited: the built-in ones all start with `.`,
 * which most paths hold once or twice.
 */
function literalSegments(alternatives: readonly string[]): LiteralScan | undefined {
  const names = allLiteral(alternatives, 1);
  if (names === undefined) return undefined;
  const groups = new Map<string, string[]>();
  for (const n of names) {
    const list = groups.get(n.charAt(0)) ?? [];
    groups.set(n.charAt(0), list);
    list.push(n);
  }
  const byFirst = [...groups];
  return {
    in(path, from) {
      for (const [first, list] of byFirst) {
        for (let i = path.indexOf(first, from); i >= 0; i = path.indexOf(first, i + 1)) {
          if (i !== from && path.charCodeAt(i - 1) !== 0x2f) continue;
          for (const n of list) {
            const end = i + n.length;
            if ((end === path.length || path.charCodeAt(end) === 0x2f) && path.startsWith(n, i)) return true;
          }
        }
      }
      return false;
    },
  };
}

/** `**\/a/b` with literal segments: the path is `a/b` or ends with `/a/b` (its last k segments are exactly that). */
function literalSuffixes(alternatives: readonly string[], k: number): LiteralTails | undefined {
  const tails = allLiteral(alternatives, k);
  if (tails === undefined) return undefined;
  // Each tail as its leading segments and its last one: `dir/name` ends with the tail exactly when the name is the
  // last segment and the directory is, or ends with `/` and, the leading ones.
  const split = tails.map((t) => {
    const cut = t.lastIndexOf('/');
    return { lead: t.slice(0, cut), last: t.slice(cut + 1) };
  });
  return {
    in(path, from) {
      for (const t of tails) {
        const at = path.length - t.length;
        if (at >= from && path.endsWith(t) && (at === from || path.charCodeAt(at - 1) === 0x2f)) return true;
      }
      return false;
    },
    namesIn(dir) {
      const out: string[] = [];
      for (const { lead, last } of split) {
        if (!dir.endsWith(lead)) continue;
        if (dir.length === lead.length || dir.charCodeAt(dir.length - lead.length - 1) === 0x2f) out.push(last);
      }
      return out;
    },
  };
}

/** The last `k` segments of a path as `parts.slice(-k).join('/')` gives them, or undefined with fewer than `k`. */
function lastSegments(path: string, k: number): string | undefined {
  let i = path.length;
  for (let n = 0; n < k; n++) {
    i = i <= 0 ? -1 : path.lastIndexOf('/', i - 1);
    if (i < 0) return n === k - 1 ? path : undefined;
  }
  return path.slice(i + 1);
}

/** True when some `/`-separated segment of the path (as `split('/')` gives them) passes the test. */
function anySegmentOf(path: string, test: (s: string) => boolean): boolean {
  let start = 0;
  for (;;) {
    const end = path.indexOf('/', start);
    if (test(end < 0 ? path.slice(start) : path.slice(start, end))) return true;
    if (end < 0) return false;
    start = end + 1;
  }
}

// A single alternative must not be wrapped: "{x}" is a literal, not a brace expansion.
function braced(alternatives: readonly string[]): string | undefined {
  const unique = [...new Set(alternatives)];
  if (unique.length === 0) return undefined;
  return unique.length === 1 ? (unique[0] ?? '') : `{${unique.join(',')}}`;
}

/** One test of a single segment against any of the alternatives (undefined when there are none). */
function anySegment(alternatives: readonly string[]): SegmentTest | undefined {
  const glob = braced(alternatives);
  return glob === undefined ? undefined : compileSegmentTest(glob);
}

/** One test of a multi-segment string against any of the alternatives. */
function anyPath(alternatives: readonly string[]): (s: string) => boolean {
  const glob = braced(alternatives);
  if (glob === undefined) return () => false;
  const set = compileGlobs([glob]);
  return (s) => set.matches(s);
}

/** The built-in zones alone, compiled once. */
export const DEFAULT_PRIVACY: PrivacyZones = compilePrivacy();

/** Options for `withPrivacy`. */
export interface WithPrivacyOptions {
  /**
   * Private paths the perimeter explicitly granted for writing (see `compileProtected(...).isGranted`).
   * Reading a private path is never granted.
   */
  readonly writeGrant?: (path: string) => boolean;
}

/**
 * Layers privacy zones on a scope. The result never reads a private path, never lists a directory that is wholly
 * private, never writes a private path unless `writeGrant` allows it, and never allows anything the base scope
 * refuses. A directory stays listable when it could still hold a visible file (the listing is filtered after).
 */
export function withPrivacy(scope: Scope, zones: PrivacyZones, options: WithPrivacyOptions = {}): Scope {
  const grant = options.writeGrant ?? (() => false);
  const canRead = (p: string): boolean => scope.canRead(p) && !zones.isPrivate(p);
  return {
    canRead: withReadForms(canRead, {
      inDir: (dir) => {
        const base = readerIn(scope, dir);
        const hidden = zones.inDir(dir);
        return (p) => base(p) && !hidden(p);
      },
      normalized: (p) => canReadNormalized(scope, p) && !zones.isPrivate(p),
    }),
    canList: (d) => scope.canList(d) && !zones.hidesDir(d),
    canWrite: (p) => scope.canWrite(p) && (!zones.isPrivate(p) || grant(p)),
  };
}

// Drops trailing dots and spaces from each segment (a loop, not a regex: linear whatever the input). Most paths have
// no segment ending in either, and come back as they are without being split.
function trimSegments(path: string): string {
  if (!endsASegmentWithDotOrSpace(path)) return path;
  return path.split('/').map(trimSegment).join('/');
}

// One segment without its trailing dots and spaces; a segment of nothing else is kept as it is.
function trimSegment(s: string): string {
  let end = s.length;
  while (end > 0 && (s.charCodeAt(end - 1) === 0x2e || s.charCodeAt(end - 1) === 0x20)) end--;
  return end === 0 || end === s.length ? s : s.slice(0, end);
}

function endsASegmentWithDotOrSpace(path: string): boolean {
  return endsASegmentWith(path, '.') || endsASegmentWith(path, ' ');
}

// Visits only the places holding `c` (a dot is in most paths once or twice, a space rarely).
function endsASegmentWith(path: string, c: string): boolean {
  for (let i = path.indexOf(c); i >= 0; i = path.indexOf(c, i + 1)) {
    if (i + 1 === path.length || path.charCodeAt(i + 1) === 0x2f) return true;
  }
  return false;
}
