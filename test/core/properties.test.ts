// Property tests over small alphabets, so that globs and paths actually meet.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  bindAgent,
  decide,
  filterCommit,
  filterTree,
  historyPrefixes,
  isWithin,
  normalizePath,
  parentOf,
  scopeOf,
  statsOf,
  type CommitDetail,
  type CommitFile,
  type FileStatus,
  type Perimeter,
  type ToolPolicy,
  type TreeEntry,
} from '../../src/core/index.js';

const RUNS = { numRuns: 400 };

// ---- generators ---------------------------------------------------------------------------------------------------

// Sized so that about half of the generated (globs, paths) cases read something.
const SEGMENTS = ['a', 'b', '.a', 'A', 'a.md', '.md', 'x.tf', 'a-b'];
const segment = fc.constantFrom(...SEGMENTS);
const path = fc.array(segment, { minLength: 1, maxLength: 3 }).map((s) => s.join('/'));
const dirPath = fc.array(segment, { minLength: 0, maxLength: 3 }).map((s) => s.join('/'));

const GLOB_SEGMENTS = [...SEGMENTS, '*', '**', '**', '*.md', '?', 'a*', '[ab]', '{a,b}', '{a,.a}', '{a.md,b}'];
const glob = fc
  .array(fc.constantFrom(...GLOB_SEGMENTS), { minLength: 1, maxLength: 3 })
  .map((s) => s.join('/'))
  // `**/**` style globs are legal but add nothing; keep one globstar run at most for readable shrinking
  .filter((g) => !g.includes('**/**'));
const globs = fc.array(glob, { minLength: 0, maxLength: 4 });

const PERSON = { name: 'n', email: 'e@example.com', date: '2024-01-01T00:00:00Z' };

// ---- normalizePath ------------------------------------------------------------------------------------------------

const NASTY_UNITS = [
  'a',
  'b',
  '.',
  '..',
  '/',
  '\\',
  '\0',
  '\n',
  '%2F',
  '%2e',
  '%5c',
  '%',
  ':',
  'C:',
  '\u200b',
  '\u202e',
  '\ud800',
  '\udc00',
  '\u{1f600}',
  '\uff0f',
  '\u2028',
  ' ',
  '*',
];
const nastyString = fc.array(fc.constantFrom(...NASTY_UNITS), { maxLength: 12 }).map((u) => u.join(''));

describe('property: normalizePath', () => {
  it('an accepted path is returned unchanged and has a clean shape', () => {
    fc.assert(
      fc.property(fc.oneof(nastyString, fc.string({ unit: 'binary', maxLength: 20 }), path), (input) => {
        const r = normalizePath(input);
        if (!r.ok) return;
        expect(r.value).toBe(input);
        if (input === '') return;
        expect(input.startsWith('/')).toBe(false);
        expect(input.endsWith('/')).toBe(false);
        expect(input).not.toMatch(/[\\\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}]/u);
        expect(input).not.toMatch(/%(2f|5c|2e|00)/i);
        expect(input).not.toMatch(/^[A-Za-z]:/);
        for (const s of input.split('/')) {
          expect(s).not.toBe('');
          expect(s).not.toBe('.');
          expect(s).not.toBe('..');
        }
        // What passes is exactly what git will get: it survives a UTF-8 round trip.
        expect(new TextDecoder().decode(new TextEncoder().encode(input))).toBe(input);
      }),
      { numRuns: 500 },
    );
  });

  it('is idempotent', () => {
    fc.assert(
      fc.property(fc.oneof(nastyString, fc.string({ unit: 'grapheme', maxLength: 20 })), (input) => {
        const r = normalizePath(input);
        if (r.ok) expect(normalizePath(r.value)).toEqual(r);
      }),
      RUNS,
    );
  });
});

// ---- filterTree ---------------------------------------------------------------------------------------------------

/** A consistent tree: every file's ancestors are dirs, and no path is both a file and a dir. */
function treeOf(files: string[]): TreeEntry[] {
  const dirs = new Set<string>();
  for (const f of files) for (let d = parentOf(f); d !== ''; d = parentOf(d)) dirs.add(d);
  const kept = files.filter((f) => !dirs.has(f));
  const all = [
    ...[...dirs].map((p) => ({ path: p, type: 'dir' as const, sha: 't' })),
    ...kept.map((p) => ({ path: p, type: 'file' as const, sha: 'b' })),
  ];
  return all.sort((x, y) => (x.path < y.path ? -1 : x.path > y.path ? 1 : 0));
}

describe('property: filterTree', () => {
  it('shows only readable files, directories with a readable descendant, and every readable file below the base', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(path, { maxLength: 25 }),
        globs,
        dirPath,
        fc.boolean(),
        (files, read, base, recursive) => {
          const scope = scopeOf({ read, write: [] });
          const tree = treeOf(files);
          const out = filterTree(tree, scope, base, recursive);
          const readableFiles = tree.filter((e) => e.type !== 'dir' && scope.canRead(e.path));
          for (const e of out) {
            expect(isWithin(e.path, base) && e.path !== base).toBe(true);
            if (!recursive) expect(parentOf(e.path)).toBe(base);
            if (e.type === 'dir')
              expect(readableFiles.some((f) => isWithin(f.path, e.path) && f.path !== e.path)).toBe(true);
            else expect(scope.canRead(e.path)).toBe(true);
          }
          // completeness: nothing readable is lost
          const shown = new Set(out.map((e) => e.path));
          for (const f of readableFiles) {
            if (!isWithin(f.path, base) || f.path === base) continue;
            if (recursive) expect(shown.has(f.path)).toBe(true);
            else {
              // its ancestor directly below base is shown
              let top = f.path;
              while (parentOf(top) !== base) top = parentOf(top);
              expect(shown.has(top)).toBe(true);
            }
          }
        },
      ),
      RUNS,
    );
  });
});

// ---- filterCommit -------------------------------------------------------------------------------------------------

const STATUSES: FileStatus[] = ['added', 'modified', 'removed', 'renamed', 'copied', 'changed', 'unchanged'];
const commitFile: fc.Arbitrary<CommitFile> = fc
  .record({
    path,
    status: fc.constantFrom(...STATUSES),
    previous: fc.option(path, { nil: undefined }),
    additions: fc.nat(50),
    deletions: fc.nat(50),
    patch: fc.option(fc.constant('PATCH'), { nil: undefined }),
  })
  .map(({ path: p, status, previous, additions, deletions, patch }) => {
    const f: CommitFile = { path: p, status, additions, deletions };
    return {
      ...f,
      ...(previous !== undefined && (status === 'renamed' || status === 'copied') ? { previous_path: previous } : {}),
      ...(patch !== undefined ? { patch: `${patch} ${p} ${previous ?? ''}` } : {}),
    };
  });

describe('property: filterCommit', () => {
  it('never returns a path the scope cannot read, nor a patch that spans the boundary', () => {
    fc.assert(
      fc.property(fc.array(commitFile, { maxLength: 8 }), globs, (files, read) => {
        const scope = scopeOf({ read, write: [] });
        const commit: CommitDetail = { sha: 's', message: 'm', author: PERSON, committer: PERSON, parents: [], files };
        const view = filterCommit(commit, scope);
        const anyReadable = files.some(
          (f) =>
            scope.canRead(f.path) ||
            (f.status === 'renamed' && f.previous_path !== undefined && scope.canRead(f.previous_path)),
        );
        if (view.kind === 'invisible') {
          expect(anyReadable).toBe(false);
          return;
        }
        expect(anyReadable).toBe(true);
        const out = view.commit.files;
        expect(out.length).toBeGreaterThan(0);
        // Every rename reads as its two unpaired sides, each shown or counted (issue 19).
        const renames = files.filter((f) => f.status === 'renamed' && f.previous_path !== undefined).length;
        expect(out.length + view.omitted_count).toBe(files.length + renames);
        expect(view.stats).toEqual(statsOf(out));
        for (const f of out) {
          expect(scope.canRead(f.path)).toBe(true);
          if (f.previous_path !== undefined) expect(scope.canRead(f.previous_path)).toBe(true);
          if (f.patch !== undefined) {
            // a patch survives only on an entry whose every side is readable, and is the upstream's own
            expect(files).toContainEqual(f);
          }
        }
      }),
      RUNS,
    );
  });
});

// ---- decide on writes -----------------------------------------------------------------------------------------------

// Write globs whose meaning an independent oracle can state without minimatch.
type SimpleGlob =
  | { kind: 'literal'; p: string }
  | { kind: 'below'; d: string }
  | { kind: 'children'; d: string }
  | { kind: 'named'; n: string };
const simpleGlob: fc.Arbitrary<SimpleGlob> = fc.oneof(
  path.map((p) => ({ kind: 'literal' as const, p })),
  path.map((d) => ({ kind: 'below' as const, d })),
  path.map((d) => ({ kind: 'children' as const, d })),
  segment.map((n) => ({ kind: 'named' as const, n })),
);
const render = (g: SimpleGlob): string =>
  g.kind === 'literal' ? g.p : g.kind === 'below' ? `${g.d}/**` : g.kind === 'children' ? `${g.d}/*` : `**/${g.n}`;
const oracle = (g: SimpleGlob, p: string): boolean =>
  g.kind === 'literal'
    ? p === g.p
    : g.kind === 'below'
      ? p.startsWith(`${g.d}/`)
      : g.kind === 'children'
        ? parentOf(p) === g.d
        : p === g.n || p.endsWith(`/${g.n}`);

const WRITE: ToolPolicy<string[]> = {
  name: 'push_files',
  access: 'write',
  surfaces: ['agent', 'root'],
  pathMode: 'all',
  paths: (ps) => ps.map((p) => ({ path: p, role: 'write' })),
  rootTarget: () => ({ repo: 'r', ref: 'main' }),
};

describe('property: decide on writes', () => {
  it('allows a write set iff every path is writable, and a refusal names exactly the refused paths', () => {
    fc.assert(
      fc.property(
        fc.array(simpleGlob, { maxLength: 4 }),
        fc.array(path, { minLength: 1, maxLength: 6 }),
        (ws, writes) => {
          const perimeter: Perimeter = {
            id: 'p',
            repo: 'r',
            read: [],
            write: ws.map(render),
            default_branch: 'main',
            branches: ['main'],
          };
          const b = bindAgent(perimeter, undefined);
          if (!b.ok) throw new Error('binds');
          const writable = (p: string): boolean => ws.some((g) => oracle(g, p));
          expect(writes.every((p) => b.value.scope.canWrite(p) === writable(p))).toBe(true);
          const v = decide(b.value, WRITE, writes);
          if (writes.every(writable)) {
            expect(v.kind).toBe('allow');
          } else {
            expect(v.kind).toBe('deny');
            if (v.kind !== 'deny') return;
            for (const p of writes) {
              if (!writable(p)) expect(v.reason).toContain(`"${p}"`);
              else expect(v.reason).not.toContain(`"${p}"`);
            }
            expect(v.reason).not.toContain('*');
          }
        },
      ),
      RUNS,
    );
  });
});

describe('property: decide on reads', () => {
  const read = (pathMode: 'all' | 'each'): ToolPolicy<string[]> => ({
    ...WRITE,
    name: 'get_files',
    access: 'read',
    pathMode,
    paths: (ps) => ps.map((p) => ({ path: p, role: 'file' })),
  });

  it('each: hides exactly the unreadable paths; all: invisible iff any path is unreadable', () => {
    fc.assert(
      fc.property(
        fc.array(simpleGlob, { maxLength: 4 }),
        fc.array(path, { minLength: 1, maxLength: 6 }),
        (rs, paths) => {
          const perimeter: Perimeter = {
            id: 'p',
            repo: 'r',
            read: rs.map(render),
            write: [],
            default_branch: 'main',
            branches: ['main'],
          };
          const b = bindAgent(perimeter, undefined);
          if (!b.ok) throw new Error('binds');
          const readableByOracle = (p: string): boolean => rs.some((g) => oracle(g, p));
          const each = decide(b.value, read('each'), paths);
          expect(each.kind).toBe('allow');
          if (each.kind === 'allow')
            expect([...each.hidden].sort()).toEqual([...new Set(paths.filter((p) => !readableByOracle(p)))].sort());
          expect(decide(b.value, read('all'), paths).kind).toBe(paths.every(readableByOracle) ? 'allow' : 'invisible');
        },
      ),
      RUNS,
    );
  });
});

// ---- historyPrefixes ----------------------------------------------------------------------------------------------

// A tighter alphabet for prefixes, so that globs share prefixes and nest inside each other often.
const tinySegment = fc.constantFrom('a', 'b', 'c.md');
const tinyPath = fc.array(tinySegment, { minLength: 1, maxLength: 3 }).map((s) => s.join('/'));
const tinyGlob = fc
  .array(fc.constantFrom('a', 'b', 'c.md', '*', '**', '*.md', '{a,b}'), { minLength: 1, maxLength: 3 })
  .map((s) => s.join('/'))
  .filter((g) => !g.includes('**/**'));
const prefixCase = fc.oneof(
  { weight: 1, arbitrary: fc.tuple(globs, fc.array(path, { maxLength: 20 })) },
  {
    weight: 4,
    arbitrary: fc.tuple(
      fc.array(tinyGlob, { minLength: 1, maxLength: 4 }),
      fc.uniqueArray(tinyPath, { maxLength: 20 }),
    ),
  },
);

describe('property: historyPrefixes', () => {
  it('is sound: every readable path lies within a returned prefix; prefixes are sorted and disjoint', () => {
    fc.assert(
      fc.property(prefixCase, ([read, paths]) => {
        const scope = scopeOf({ read, write: [] });
        const h = historyPrefixes(read);
        for (const p of paths) if (scope.canRead(p)) expect(h.prefixes.some((k) => isWithin(p, k))).toBe(true);
        expect([...h.prefixes].sort()).toEqual(h.prefixes);
        for (const k of h.prefixes) for (const q of h.prefixes) if (k !== q) expect(isWithin(q, k)).toBe(false);
        if (h.prefixes.includes('')) {
          expect(h.prefixes).toEqual(['']);
          expect(h.unprefixed.length).toBeGreaterThan(0);
          expect(h.exact).toBe(false);
        }
        if (read.length === 0) expect(h.prefixes).toEqual([]);
      }),
      { numRuns: 500 },
    );
  });

  it('is exact only when each prefix is a readable file alone or a directory with everything below it readable', () => {
    fc.assert(
      fc.property(prefixCase, ([read, paths]) => {
        const scope = scopeOf({ read, write: [] });
        const h = historyPrefixes(read);
        if (!h.exact) return;
        for (const k of h.prefixes) {
          const below = paths.filter((p) => p.startsWith(`${k}/`));
          const dirAllReadable = below.every((p) => scope.canRead(p));
          // A prefix is a pathspec: it matches the file k and everything below k/. The one admitted wart is the other
          // kind of object at the same name (a file named like a `dir/**` prefix, a dir named like a literal file).
          const fileAlone = scope.canRead(k) && below.every((p) => !scope.canRead(p));
          expect(dirAllReadable || fileAlone).toBe(true);
        }
      }),
      { numRuns: 500 },
    );
  });
});
