// Issue 11 item 2: the compiled matcher must answer exactly what the per-glob minimatch implementation answered.
// The slow references live here, not in src: they are the semantics the fast code is held to.
import fc from 'fast-check';
import { Minimatch, type MinimatchOptions } from 'minimatch';
import { describe, expect, it } from 'vitest';
import {
  canReadNormalized,
  compileGlobs,
  compileNameTest,
  compilePrivacy,
  compileSegmentTest,
  DEFAULT_PRIVACY_PATTERNS,
  expandBraces,
  filterTree,
  isWithin,
  MAX_PATH_LENGTH,
  MAX_SEGMENT_LENGTH,
  normalizePath,
  parentOf,
  readerIn,
  validateGlob,
  withPrivacy,
  scopeOf,
  type Scope,
  type TreeEntry,
} from '../../src/core/index.js';

const RUNS = { numRuns: 600 };
const OPTIONS: MinimatchOptions = { dot: true, nonegate: true, nocomment: true, platform: 'linux', nocase: false };

// ---- slow references (the implementation before the compiled matcher) ----------------------------------------------

interface RefGlobSet {
  matches(path: string): boolean;
  couldContain(dir: string): boolean;
}

function refGlobs(globs: readonly string[]): RefGlobSet {
  const compiled = globs.map((g) => new Minimatch(g, OPTIONS));
  return {
    matches: (path) => compiled.some((m) => m.match(path)),
    couldContain: (dir) => dir === '' || compiled.some((m) => m.match(dir, true)),
  };
}

const REF_ENV_EXEMPTIONS = ['**/.env.{example,sample,template,dist}', '**/.env.*.{example,sample,template,dist}'];
const REF_EXEMPTED_RULE = '**/.env.*';

function refPrivacy(extras: readonly string[]): { isPrivate(p: string): boolean; hidesDir(d: string): boolean } {
  const plain = refZoneMatcher([...DEFAULT_PRIVACY_PATTERNS.filter((p) => p !== REF_EXEMPTED_RULE), ...extras]);
  const env = refZoneMatcher([REF_EXEMPTED_RULE]);
  const exempt = refZoneMatcher(REF_ENV_EXEMPTIONS);
  const fileOne = (p: string): boolean => plain.file(p) || (env.file(p) && !exempt.file(p));
  const dirOne = (d: string): boolean => plain.dir(d);
  return {
    isPrivate(path) {
      if (path === '') return false;
      const folded = path.toLowerCase();
      const trimmed = refTrim(folded);
      return fileOne(folded) || (trimmed !== folded && fileOne(trimmed));
    },
    hidesDir(dir) {
      if (dir === '') return false;
      const folded = dir.toLowerCase();
      const trimmed = refTrim(folded);
      return dirOne(folded) || (trimmed !== folded && dirOne(trimmed));
    },
  };
}

function refZoneMatcher(globs: readonly string[]): { file(p: string): boolean; dir(d: string): boolean } {
  const names: string[] = [];
  const segments: string[] = [];
  const suffixes = new Map<number, string[]>();
  const whole: string[] = [];
  const wholeDirs: string[] = [];
  // Issue 11 item 2 follow-up: a piece that cannot be joined falls back to the whole pattern, never the piece.
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
  const anyOf = (alternatives: readonly string[]): ((s: string) => boolean) => {
    const unique = [...new Set(alternatives)];
    if (unique.length === 0) return () => false;
    const set = refGlobs([unique.length === 1 ? (unique[0] ?? '') : `{${unique.join(',')}}`]);
    return (s) => set.matches(s);
  };
  const name = anyOf(names);
  const segment = anyOf(segments);
  const suffix = [...suffixes].map(([k, list]) => [k, anyOf(list)] as const);
  const wholeSet = refGlobs(whole);
  const dirSet = refGlobs(wholeDirs);
  const stemSet = refGlobs(wholeDirs.map((g) => g.slice(0, -'/**'.length)).filter((s) => s !== ''));
  const dir = (d: string, parts: readonly string[]): boolean =>
    parts.some((p) => segment(p)) || dirSet.matches(d) || stemSet.matches(d);
  return {
    file(path) {
      const parts = path.split('/');
      if (name(parts[parts.length - 1] ?? '')) return true;
      for (const [k, test] of suffix) if (parts.length >= k && test(parts.slice(-k).join('/'))) return true;
      return wholeSet.matches(path) || dir(path, parts);
    },
    dir: (d) => dir(d, d.split('/')),
  };
}

function refTrim(path: string): string {
  return path
    .split('/')
    .map((s) => {
      let end = s.length;
      while (end > 0 && (s[end - 1] === '.' || s[end - 1] === ' ')) end--;
      return end === 0 ? s : s.slice(0, end);
    })
    .join('/');
}

function refFilterTree(entries: readonly TreeEntry[], scope: Scope, base: string, recursive: boolean): TreeEntry[] {
  const visibleDirs = new Set<string>();
  const kept = new Set<TreeEntry>();
  for (const e of entries) {
    if (e.type === 'dir' || !isWithin(e.path, base) || e.path === base) continue;
    if (!scope.canRead(e.path)) continue;
    kept.add(e);
    for (let d = parentOf(e.path); d !== '' && d !== base; d = parentOf(d)) {
      if (visibleDirs.has(d)) break;
      visibleDirs.add(d);
    }
  }
  const out = entries.filter((e) => (e.type === 'dir' && visibleDirs.has(e.path)) || kept.has(e));
  if (recursive) return out;
  return out.filter((e) => parentOf(e.path) === base);
}

// ---- generators ----------------------------------------------------------------------------------------------------

// Names the zones care about, in case variants and with Windows' trailing dots and spaces, plus look-alikes.
const NAME_SEGMENTS = [
  'a',
  'b',
  'A',
  'src',
  'x.md',
  '.md',
  'a.MD',
  'a-b',
  'a b',
  'a.',
  'a ',
  '.a',
  '.env',
  '.ENV',
  '.Env',
  '.env.',
  '.env ',
  '.env.local',
  '.ENV.Local',
  '.env.example',
  '.env.prod.sample',
  '.envrc',
  'prod.env',
  'id_rsa',
  'ID_RSA.pub',
  'id_ed25519',
  'key.pem',
  'KEY.PEM',
  'x.key',
  'x.p12',
  'a.tfstate',
  'a.tfstate.backup',
  '.git',
  '.GIT',
  '.git.',
  '.git ',
  'git~1',
  '.ssh',
  '.gnupg',
  '.aws',
  'credentials',
  'Credentials.json',
  'config',
  '.docker',
  'config.json',
  '.kube',
  'x.kube',
  'x.aws',
  'b.git',
  'secrets.yml',
  'Secrets.YAML',
  'a.db',
  'a.sqlite3',
  'x.SQLite-wal',
  '.sqlite',
  'a..b',
  'a.b-c',
  'a-wal',
  'a-journal',
  '.npmrc',
  '_netrc',
  'İ',
  'ß',
  'K',
  'Σ',
  'a,b',
  'x',
  '{a,b}',
];
// Segments that are not clean: minimatch's split and its dot rules must be reproduced for them too.
const ODD_SEGMENTS = ['', '.', '..', '. ', '.. '];
const segment = fc.oneof(
  { weight: 9, arbitrary: fc.constantFrom(...NAME_SEGMENTS) },
  { weight: 1, arbitrary: fc.constantFrom(...ODD_SEGMENTS) },
);
const anyPath = fc.array(segment, { minLength: 0, maxLength: 5 }).map((s) => s.join('/'));
const cleanSegment = fc.constantFrom(...NAME_SEGMENTS);
const cleanPath = fc.array(cleanSegment, { minLength: 1, maxLength: 5 }).map((s) => s.join('/'));
const shortPath = fc
  .array(fc.constantFrom('a', 'b', 'c', 'A', 'x.md', '.git', 'credentials', '.aws', 'x.aws', 'config'), {
    minLength: 1,
    maxLength: 3,
  })
  .map((s) => s.join('/'));
const somePath = fc.oneof(cleanPath, anyPath, shortPath, fc.constantFrom('/', '/a', 'a/', 'a//b', '//', ''));

const GLOB_SEGMENTS = [
  'a',
  'b',
  'A',
  'src',
  '.a',
  'x.md',
  '.env',
  '.git',
  'credentials',
  'a.',
  'a ',
  '*',
  '**',
  '**',
  '?',
  '*.md',
  '*.MD',
  'a*',
  'x*',
  '*.env',
  '.env.*',
  '*-wal',
  'id_*',
  '*.p*',
  '?.md',
  '??',
  '[ab]',
  '[!a]',
  '[A-Z]*',
  '[.]env',
  '{a,b}',
  '{a,.a}',
  '{x.md,b}',
  '{.git,.ssh}',
  '{*.md,a}',
  '*.{md,env}',
  '+(a|b)',
  '@(a|x.md)',
  '!(a)',
  '*(a)',
  '?(b)',
  '.*',
  '..*',
  '.?',
  '*.',
  '*.*',
  '*a*',
  // Stars around a plain middle (`**/*.sqlite*`): tested as "holds the middle", never for `.` and `..`.
  '*.sqlite*',
  '*..*',
  '**a.**',
  '*-*',
  '*.b*',
  // Alternatives of different lengths: the zones group patterns by segment count after expansion.
  '{a,b/c}',
  '{.git/x,y}',
  '{a/**,b}',
  '{credentials,.aws/config}',
];
const glob = fc.array(fc.constantFrom(...GLOB_SEGMENTS), { minLength: 1, maxLength: 4 }).map((s) => s.join('/'));
const globs = fc.array(glob, { minLength: 0, maxLength: 5 });
const validGlobs = globs.map((gs) => gs.filter((g) => validateGlob(g).ok));
// Extra zone patterns: mostly `**/…`, the shapes the zones group by (a name, a directory, the last k segments).
const TRICKY_ZONES = [
  '**/{a,b/c}',
  '**/{credentials,.aws/config}',
  '**/{.git/x,y}/**',
  '**/{a,b}/**',
  '**/a/{b,c}',
  '**/*.{md,env}',
  '**/[ab]',
  'a/**',
  '{a,b}/**',
  '**/**',
  '**/a,b',
  '**/x/a,b',
  '**/a,b/**',
  '**/a[,]b',
  '**/\\{a,b\\}',
];
const zoneGlob = fc.oneof(
  fc.constantFrom(...TRICKY_ZONES),
  glob,
  glob.map((g) => `**/${g}`),
  fc.array(fc.constantFrom(...GLOB_SEGMENTS), { minLength: 1, maxLength: 2 }).map((s) => `**/${s.join('/')}/**`),
);
const zoneExtras = fc.array(zoneGlob, { minLength: 0, maxLength: 4 }).map((gs) => gs.filter((g) => validateGlob(g).ok));

// ---- properties ----------------------------------------------------------------------------------------------------

describe('property: the compiled glob set answers what per-glob minimatch answers', () => {
  it('matches, on clean and odd paths', () => {
    fc.assert(
      fc.property(globs, fc.array(somePath, { minLength: 1, maxLength: 8 }), (gs, paths) => {
        const fast = compileGlobs(gs);
        const slow = refGlobs(gs);
        for (const p of paths) expect([gs, p, fast.matches(p)]).toEqual([gs, p, slow.matches(p)]);
      }),
      RUNS,
    );
  });

  it('couldContain ({partial: true}), on clean and odd directories', () => {
    fc.assert(
      fc.property(globs, fc.array(somePath, { minLength: 1, maxLength: 8 }), (gs, dirs) => {
        const fast = compileGlobs(gs);
        const slow = refGlobs(gs);
        for (const d of dirs) expect([gs, d, fast.couldContain(d)]).toEqual([gs, d, slow.couldContain(d)]);
      }),
      RUNS,
    );
  });

  it('a segment test answers what matching the glob against that one segment answers', () => {
    const one = fc
      .array(fc.constantFrom(...GLOB_SEGMENTS.filter((g) => g !== '**')), { minLength: 1, maxLength: 3 })
      .map((s) => (s.length === 1 ? (s[0] ?? '') : `{${s.join(',')}}`));
    fc.assert(
      fc.property(
        one,
        fc.array(
          fc.oneof(
            segment,
            fc.string({ maxLength: 6 }).filter((s) => !s.includes('/')),
          ),
          { minLength: 1, maxLength: 8 },
        ),
        (g, segs) => {
          const fast = compileSegmentTest(g);
          const slow = refGlobs([g]);
          for (const s of segs) expect([g, s, fast(s)]).toEqual([g, s, slow.matches(s)]);
        },
      ),
      RUNS,
    );
  });
});

describe('property: compiled privacy zones answer what the per-glob zones answered', () => {
  it('isPrivate and hidesDir, with and without extra patterns, in any case and with trailing dots or spaces', () => {
    fc.assert(
      fc.property(zoneExtras, fc.array(somePath, { minLength: 1, maxLength: 8 }), (extras, paths) => {
        const fast = compilePrivacy({ patterns: extras });
        const slow = refPrivacy(extras);
        for (const p of paths) {
          expect([extras, p, fast.isPrivate(p)]).toEqual([extras, p, slow.isPrivate(p)]);
          expect([extras, p, fast.hidesDir(p)]).toEqual([extras, p, slow.hidesDir(p)]);
        }
      }),
      RUNS,
    );
  });

  it('an extra pattern hides at least every path it matches on its own (comma, brace and class shapes included)', () => {
    fc.assert(
      fc.property(zoneExtras, fc.array(cleanPath, { minLength: 1, maxLength: 8 }), (extras, paths) => {
        const zones = compilePrivacy({ patterns: extras });
        for (const g of extras) {
          const mm = new Minimatch(g.toLowerCase(), OPTIONS);
          for (const p of paths)
            if (mm.match(p.toLowerCase())) expect([g, p, zones.isPrivate(p)]).toEqual([g, p, true]);
        }
      }),
      RUNS,
    );
  });

  it('the built-in zones, on many paths', () => {
    const fast = compilePrivacy();
    const slow = refPrivacy([]);
    fc.assert(
      fc.property(somePath, (p) => {
        expect([p, fast.isPrivate(p)]).toEqual([p, slow.isPrivate(p)]);
        expect([p, fast.hidesDir(p)]).toEqual([p, slow.hidesDir(p)]);
      }),
      { numRuns: 3000 },
    );
  });
});

describe('property: filterTree answers what the two-pass filter answered', () => {
  // A tree from paths: every file brings its parent directories, plus a few stray entries (a file outside any
  // listed directory, a duplicate) the way an upstream might send them.
  const tree = fc.array(fc.oneof(cleanPath, anyPath), { minLength: 0, maxLength: 25 }).map((paths) => {
    const entries: TreeEntry[] = [];
    const seen = new Set<string>();
    for (const p of paths) {
      const parts = p.split('/');
      for (let i = 1; i < parts.length; i++) {
        const d = parts.slice(0, i).join('/');
        if (!seen.has(`d:${d}`)) {
          seen.add(`d:${d}`);
          entries.push({ path: d, type: 'dir', sha: 'd' });
        }
      }
      entries.push({ path: p, type: 'file', sha: 'f', size: 1 });
    }
    return entries;
  });
  const baseChoice = fc.oneof(fc.constant(undefined), fc.nat(), fc.constantFrom('a', 'src', '.git', 'a/', 'zzz'));
  const readGlobs = fc.oneof(
    validGlobs,
    fc.constantFrom<string[]>(['**'], ['a/**'], ['**/*.md', 'src/**'], ['**/a', 'b']),
  );

  it('recursive and one-level, over read globs and privacy zones, at the root and at listed directories', () => {
    fc.assert(
      fc.property(readGlobs, tree, baseChoice, fc.boolean(), (gs, entries, choice, recursive) => {
        // Mostly a directory the tree holds (so its children exist), sometimes the root or a stray name.
        const dirs = entries.filter((e) => e.type === 'dir').map((e) => e.path);
        const b =
          typeof choice === 'number' ? (dirs.length === 0 ? '' : (dirs[choice % dirs.length] ?? '')) : (choice ?? '');
        const scope = withPrivacy(scopeOf({ read: gs, write: [] }), compilePrivacy());
        expect(filterTree(entries, scope, b, recursive)).toEqual(refFilterTree(entries, scope, b, recursive));
      }),
      RUNS,
    );
  });
});

// normalizePath gained a one-scan accept path (every decide starts with it); the full checks are the reference.
function refNormalizePath(input: unknown): { ok: true; value: string } | { ok: false; message: string } {
  const no = (message: string) => ({ ok: false as const, message });
  if (typeof input !== 'string') return no('A path must be a string.');
  if (input === '') return { ok: true, value: '' };
  if (input.length > MAX_PATH_LENGTH) return no(`Path is longer than ${MAX_PATH_LENGTH} characters.`);
  if (/[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}]/u.test(input)) return no('Path contains control or invisible characters.');
  if (input.includes('\\')) return no('Use "/" as the path separator, not "\\".');
  if (input.startsWith('/')) return no('Paths are relative to the repository root: remove the leading "/".');
  if (/^[A-Za-z]:/.test(input)) return no('Paths are relative to the repository root: remove the drive letter.');
  if (/%(2f|5c|2e|00)/i.test(input)) return no('Path contains a percent-encoded separator or dot; send it decoded.');
  if (input.endsWith('/')) return no('Remove the trailing "/" from the path.');
  for (const segment of input.split('/')) {
    if (segment === '') return no('Path contains an empty segment ("//").');
    if (segment === '.' || segment === '..') return no('Path segments "." and ".." are not allowed.');
    if (segment.length > MAX_SEGMENT_LENGTH)
      return no(`A path segment is longer than ${MAX_SEGMENT_LENGTH} characters.`);
  }
  return { ok: true, value: input };
}

describe('property: normalizePath answers what the full checks answer', () => {
  const UNITS = [
    'a',
    'B',
    '.',
    '..',
    '/',
    '//',
    '\\',
    '%',
    '%2F',
    '%2e',
    '%41',
    ':',
    'C:',
    'c',
    ' ',
    '~',
    '\x7f',
    '\x1f',
    '\0',
    '\n',
    '\u00a0',
    '\u200b',
    '\ud800',
    'é',
    '\u2028',
    '*',
  ];
  const input = fc.oneof(
    fc.array(fc.constantFrom(...UNITS), { maxLength: 10 }).map((u) => u.join('')),
    fc.string({ unit: 'binary', maxLength: 12 }),
    fc.constantFrom(
      'a'.repeat(MAX_SEGMENT_LENGTH),
      'a'.repeat(MAX_SEGMENT_LENGTH + 1),
      `b/${'a'.repeat(MAX_SEGMENT_LENGTH + 1)}`,
      'a/'.repeat(2048) + 'a',
      'ab/'.repeat(1366),
    ),
  );
  it('accepts and refuses the same inputs, with the same messages', () => {
    fc.assert(
      fc.property(input, (s) => {
        const fast = normalizePath(s);
        const slow = refNormalizePath(s);
        expect(fast.ok ? { ok: true, value: fast.value } : { ok: false, message: fast.message }).toEqual(slow);
      }),
      { numRuns: 3000 },
    );
  });
});

// Session 3 of issue 24: faster forms of the same predicates (per-directory tests for listings, the normalized-path
// form decide uses, name tests on a path in place). Each must answer exactly what the predicate it speeds up answers.
describe('property: the faster forms answer what the predicates answer', () => {
  // A directory and a name in it (the name may be odd: empty, `.`, `..`, trailing dots or spaces, any case).
  const inDirCase = fc.tuple(fc.oneof(fc.constant(''), somePath, fc.constantFrom('a', 'a/b', 'src', 'src/a')), segment);
  // Globs whose fast shapes (`head/**`, `head/**\/tail`) the directories above satisfy, besides random ones.
  const dirGlobs = fc.oneof(
    globs,
    fc.constantFrom(['a/**'], ['a/**/x.md'], ['a/**', 'src/**/*.md'], ['src/a/b', 'a/b/**/*.MD'], ['**/a', 'src/*']),
  );
  const join = (dir: string, name: string): string => (dir === '' ? name : `${dir}/${name}`);

  it('a glob set settled per directory (`inDir`) and for normalized paths (`matchesNormalized`)', () => {
    fc.assert(
      fc.property(dirGlobs, fc.array(inDirCase, { minLength: 1, maxLength: 8 }), (gs, cases) => {
        const fast = compileGlobs(gs);
        const slow = refGlobs(gs);
        for (const [dir, name] of cases) {
          const path = join(dir, name);
          expect([gs, dir, path, fast.inDir(dir)(path)]).toEqual([gs, dir, path, slow.matches(path)]);
          if (normalizePath(path).ok)
            expect([gs, path, fast.matchesNormalized(path)]).toEqual([gs, path, slow.matches(path)]);
        }
      }),
      RUNS,
    );
  });

  it('privacy zones settled per directory (`inDir`), with and without extra patterns', () => {
    fc.assert(
      fc.property(zoneExtras, fc.array(inDirCase, { minLength: 1, maxLength: 8 }), (extras, cases) => {
        const fast = compilePrivacy({ patterns: extras });
        const slow = refPrivacy(extras);
        for (const [dir, name] of cases) {
          const path = join(dir, name);
          expect([extras, dir, path, fast.inDir(dir)(path)]).toEqual([extras, dir, path, slow.isPrivate(path)]);
        }
      }),
      RUNS,
    );
  });

  it('a scope with zones: `readerIn` and `canReadNormalized` answer `canRead`, a replaced `canRead` loses them', () => {
    fc.assert(
      fc.property(validGlobs, zoneExtras, fc.array(inDirCase, { minLength: 1, maxLength: 8 }), (gs, extras, cases) => {
        const scope = withPrivacy(scopeOf({ read: gs, write: [] }), compilePrivacy({ patterns: extras }));
        const read = refGlobs(gs);
        const zones = refPrivacy(extras);
        const ref = (p: string): boolean => p !== '' && read.matches(p) && !zones.isPrivate(p);
        // What history's narrowed scope does: spread, and replace canRead.
        const narrowed: Scope = { ...scope, canRead: (p) => !p.startsWith('a') && scope.canRead(p) };
        for (const [dir, name] of cases) {
          const path = join(dir, name);
          expect([gs, extras, path, readerIn(scope, dir)(path)]).toEqual([gs, extras, path, ref(path)]);
          expect([path, readerIn(narrowed, dir)(path)]).toEqual([path, !path.startsWith('a') && ref(path)]);
          if (normalizePath(path).ok) {
            expect([gs, extras, path, canReadNormalized(scope, path)]).toEqual([gs, extras, path, ref(path)]);
            expect([path, canReadNormalized(narrowed, path)]).toEqual([path, !path.startsWith('a') && ref(path)]);
          }
        }
      }),
      RUNS,
    );
  });

  it('a name test on the last segment of a path, in place, answers the segment test', () => {
    const one = fc
      .array(fc.constantFrom(...GLOB_SEGMENTS.filter((g) => g !== '**')), { minLength: 1, maxLength: 3 })
      .map((s) => (s.length === 1 ? (s[0] ?? '') : `{${s.join(',')}}`));
    fc.assert(
      fc.property(
        one,
        fc.oneof(fc.constant(''), cleanPath),
        fc.array(segment, { minLength: 1, maxLength: 8 }),
        (g, dir, segs) => {
          const fast = compileNameTest(g);
          const slow = refGlobs([g]);
          for (const s of segs) {
            const path = join(dir, s);
            const start = dir === '' ? 0 : dir.length + 1;
            expect([g, path, fast(path, start)]).toEqual([g, path, slow.matches(s)]);
          }
        },
      ),
      RUNS,
    );
  });

  it('filterTree over many files in few directories, and with a replaced canRead, answers the two-pass filter', () => {
    const dirs = fc.array(
      fc.array(cleanSegment, { minLength: 0, maxLength: 3 }).map((s) => s.join('/')),
      {
        minLength: 1,
        maxLength: 4,
      },
    );
    const files = fc.array(fc.tuple(fc.nat(), segment), { minLength: 0, maxLength: 40 });
    fc.assert(
      fc.property(validGlobs, zoneExtras, dirs, files, fc.boolean(), (gs, extras, ds, fs, recursive) => {
        const entries: TreeEntry[] = [];
        const seen = new Set<string>();
        for (const [k, name] of fs) {
          const dir = ds[k % ds.length] ?? '';
          const parts = dir === '' ? [] : dir.split('/');
          for (let i = 1; i <= parts.length; i++) {
            const d = parts.slice(0, i).join('/');
            if (!seen.has(d)) {
              seen.add(d);
              entries.push({ path: d, type: 'dir', sha: 'd' });
            }
          }
          entries.push({ path: join(dir, name), type: 'file', sha: 'f', size: 1 });
        }
        // Sorted like a git listing most of the time (runs of one directory), as generated otherwise.
        if (recursive) entries.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
        const scope = withPrivacy(scopeOf({ read: gs, write: [] }), compilePrivacy({ patterns: extras }));
        const narrowed: Scope = { ...scope, canRead: (p) => p.length % 3 !== 0 && scope.canRead(p) };
        for (const base of ['', ds[0] ?? '']) {
          for (const s of [scope, narrowed]) {
            expect(filterTree(entries, s, base, true)).toEqual(refFilterTree(entries, s, base, true));
            expect(filterTree(entries, s, base, false)).toEqual(refFilterTree(entries, s, base, false));
          }
        }
      }),
      RUNS,
    );
  });
});
