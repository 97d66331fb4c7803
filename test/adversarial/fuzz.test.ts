// Property-based fuzzing of the policy core as agents meet it: real agent bindings (read/write globs + privacy zones
// + protected paths), the real tool declarations of the registry, and paths built from hostile fragments.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  bindAgent,
  compileProtected,
  decide,
  filterCommit,
  filterTree,
  normalizePath,
  parentOf,
  type AgentBinding,
  type CommitDetail,
  type CommitFile,
  type Perimeter,
  type TreeEntry,
} from '../../src/core/index.js';
import { toolNamed } from '../../src/registry/index.js';

const RUNS = { numRuns: 200 };

// ---- generators ---------------------------------------------------------------------------------------------------

// Fragments an attacker strings together: separators, dots, encodings, controls, look-alikes, glob syntax.
const HOSTILE = [
  'app',
  'secret',
  'a',
  '.',
  '..',
  '/',
  '//',
  '\\',
  '%2e',
  '%2E',
  '%2f',
  '%5c',
  '%00',
  '%252e',
  '\u0000',
  '\n',
  '\r',
  '\t',
  '\u200b',
  '\u200d',
  '\u202e',
  '\u2066',
  '\ufeff',
  '\u2028',
  '\ud800',
  '\uff0e',
  '\uff0f',
  '\u2215',
  'C:',
  '~',
  '*',
  '**',
  '?',
  '[a]',
  '{a,b}',
  '!',
  ':(glob)',
  ':/',
  '-',
  ' ',
  '.env',
  'id_rsa',
  '.git',
  'App',
  '\u0430pp',
  'app2',
  'app.bak',
];
const hostilePath = fc.array(fc.constantFrom(...HOSTILE), { minLength: 1, maxLength: 10 }).map((p) => p.join(''));

// Well-formed paths over a small alphabet, so that they meet the globs below.
const SEGMENTS = [
  'app',
  'secret',
  'docs',
  'a',
  'b.md',
  '.env',
  'ID_RSA',
  'x.pem',
  '.git',
  'config',
  '.github',
  'workflows',
  'CODEOWNERS',
  '.gitmodules',
  'app2',
];
const cleanPath = fc.array(fc.constantFrom(...SEGMENTS), { minLength: 1, maxLength: 4 }).map((s) => s.join('/'));
const anyPath = fc.oneof(cleanPath, hostilePath);

const GLOBS = [
  'app/**',
  'docs/*.md',
  'secret/**',
  '**',
  '**/*.md',
  'a/**',
  '*',
  'app/a',
  '.github/**',
  'CODEOWNERS',
  '{app,docs}/**',
  'app/*/b.md',
];
const globs = fc.uniqueArray(fc.constantFrom(...GLOBS), { maxLength: 3 });

/** A perimeter with random read and write globs, bound to its default branch with the built-in zones. */
const binding = fc.tuple(globs, globs).map(([read, write]): AgentBinding => {
  const p: Perimeter = { id: 'p', repo: 'r', read, write, default_branch: 'main', branches: ['main'] };
  const b = bindAgent(p, undefined);
  if (!b.ok) throw new Error('bind failed');
  return b.value;
});

const PROTECTED = compileProtected();

function tool(name: string) {
  const t = toolNamed(name);
  if (!t) throw new Error(`no tool ${name}`);
  return t;
}

// ---- properties ---------------------------------------------------------------------------------------------------

describe('fuzz: path validation', () => {
  it('never accepts a path that could climb, change meaning on decoding, or hide characters', () => {
    fc.assert(
      fc.property(hostilePath, (input) => {
        const r = normalizePath(input);
        if (!r.ok) return;
        expect(r.value).toBe(input);
        const segments = input.split('/');
        expect(segments.every((s) => s !== '' && s !== '.' && s !== '..')).toBe(true);
        expect(input).not.toMatch(/[\\\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}]|%(2f|5c|2e|00)|^[A-Za-z]:/iu);
        // Decoding once more (a second layer that might percent-decode) still gives no separator, dot segment or NUL.
        let decoded = input;
        try {
          decoded = decodeURIComponent(input);
        } catch {
          return;
        }
        expect(decoded.split('/').some((s) => s === '..' || s === '.')).toBe(false);
        expect(decoded.includes('\u0000') || decoded.includes('\\')).toBe(false);
      }),
      { numRuns: 400 },
    );
  });
});

describe('fuzz: decide with real tools and real agent bindings', () => {
  it('get_file is allowed only for a valid path the binding can read', () => {
    fc.assert(
      fc.property(binding, anyPath, (b, path) => {
        const v = decide(b, tool('get_file'), { path });
        if (v.kind !== 'allow') return;
        expect(normalizePath(path).ok).toBe(true);
        expect(b.scope.canRead(path)).toBe(true);
        expect(v.target).toEqual({ repo: 'r', ref: 'main' });
      }),
      RUNS,
    );
  });

  it('get_files sends upstream only paths the binding can read', () => {
    fc.assert(
      fc.property(binding, fc.array(anyPath, { minLength: 1, maxLength: 8 }), (b, paths) => {
        const v = decide(b, tool('get_files'), { paths });
        if (v.kind !== 'allow') return;
        for (const p of paths) expect(v.hidden.has(p) || b.scope.canRead(p)).toBe(true);
      }),
      RUNS,
    );
  });

  it('get_tree and list_commits never open a directory the binding cannot list', () => {
    fc.assert(
      fc.property(binding, anyPath, (b, path) => {
        const tree = decide(b, tool('get_tree'), { path });
        if (tree.kind === 'allow') expect(b.scope.canList(path)).toBe(true);
        const log = decide(b, tool('list_commits'), { path });
        if (log.kind === 'allow' && !log.hidden.has(path)) expect(b.scope.canList(path)).toBe(true);
      }),
      RUNS,
    );
  });

  it('push_files is allowed only when every path is valid, writable, not private and not protected', () => {
    fc.assert(
      fc.property(
        binding,
        fc.array(anyPath, { minLength: 1, maxLength: 5 }),
        fc.array(anyPath, { maxLength: 3 }),
        (b, files, del) => {
          const v = decide(b, tool('push_files'), {
            message: 'm',
            files: files.map((path) => ({ path, content: '' })),
            delete: del,
          });
          if (v.kind !== 'allow') {
            // A refusal names the agent's own paths only, never a glob of the perimeter.
            const own = [...files, ...del];
            if (v.kind === 'deny')
              for (const g of b.readGlobs)
                if (g.includes('*') && !own.some((p) => p.includes(g))) expect(v.reason).not.toContain(g);
            return;
          }
          for (const p of [...files, ...del]) {
            expect(normalizePath(p).ok).toBe(true);
            expect(b.scope.canWrite(p)).toBe(true);
            expect(PROTECTED.isProtected(p)).toBe(false);
          }
        },
      ),
      RUNS,
    );
  });

  it('never reads a private file, in any case spelling, inside any read glob', () => {
    const privateName = fc.constantFrom(
      '.env',
      'id_rsa',
      'server.pem',
      'credentials.json',
      '.npmrc',
      'prod.tfstate',
      '.env.local',
      '.envrc',
    );
    const caseMix = (s: string, mask: number) => [...s].map((c, i) => ((mask >> i) & 1 ? c.toUpperCase() : c)).join('');
    fc.assert(
      fc.property(
        binding,
        fc.array(fc.constantFrom('app', 'docs', 'a', 'secret'), { maxLength: 3 }),
        privateName,
        fc.integer({ min: 0, max: 1023 }),
        fc.constantFrom('', '.', ' ', '..'),
        (b, dirs, name, mask, tail) => {
          const path = [...dirs, caseMix(name, mask) + tail].join('/');
          expect(b.scope.canRead(path)).toBe(false);
          expect(decide(b, tool('get_file'), { path }).kind).not.toBe('allow');
        },
      ),
      RUNS,
    );
  });
});

// ---- output filters -----------------------------------------------------------------------------------------------

function treeOf(files: readonly string[]): TreeEntry[] {
  const dirs = new Set<string>();
  for (const f of files) for (let d = parentOf(f); d !== ''; d = parentOf(d)) dirs.add(d);
  const kept = [...new Set(files)].filter((f) => !dirs.has(f));
  return [
    ...[...dirs].map((path) => ({ path, type: 'dir' as const, sha: 't' })),
    ...kept.map((path) => ({ path, type: 'file' as const, sha: 'b', size: 1 })),
  ];
}

const STATUSES = ['added', 'modified', 'removed', 'renamed', 'copied'] as const;
const commitFile = fc
  .record({ path: cleanPath, status: fc.constantFrom(...STATUSES), prev: fc.option(cleanPath, { nil: undefined }) })
  .map(({ path, status, prev }): CommitFile => {
    const from = (status === 'renamed' || status === 'copied') && prev !== undefined ? prev : undefined;
    // The patch of a rename or copy carries lines of its source: the filter must drop it when the source is hidden.
    return {
      path,
      status,
      ...(from === undefined ? {} : { previous_path: from }),
      additions: 1,
      deletions: 1,
      patch: `@@ -1 +1 @@\n-${from ?? path}\n+${path}\n`,
    };
  });

describe('fuzz: output filters never show what the scope cannot read', () => {
  it('filterTree lists readable files and directories holding one, nothing else', () => {
    fc.assert(
      fc.property(
        binding,
        fc.uniqueArray(cleanPath, { maxLength: 20 }),
        fc.constantFrom('', 'app', 'docs', 'secret', 'a'),
        fc.boolean(),
        (b, files, base, recursive) => {
          const tree = treeOf(files);
          const out = filterTree(tree, b.scope, base, recursive);
          const readable = tree.filter((e) => e.type !== 'dir' && b.scope.canRead(e.path)).map((e) => e.path);
          for (const e of out) {
            if (e.type === 'dir') expect(readable.some((f) => f.startsWith(`${e.path}/`))).toBe(true);
            else expect(b.scope.canRead(e.path)).toBe(true);
          }
        },
      ),
      RUNS,
    );
  });

  it('filterCommit names no unreadable path anywhere (files, rename sources, patches) and counts what it cut', () => {
    fc.assert(
      fc.property(binding, fc.array(commitFile, { minLength: 1, maxLength: 8 }), (b, files) => {
        const commit: CommitDetail = {
          sha: 's',
          message: 'm',
          author: { name: 'n', email: 'e', date: 'd' },
          committer: { name: 'n', email: 'e', date: 'd' },
          parents: ['p'],
          files,
        };
        const view = filterCommit(commit, b.scope);
        const unreadable = new Set(
          files.flatMap((f) => [f.path, f.previous_path ?? f.path]).filter((p) => !b.scope.canRead(p)),
        );
        if (view.kind === 'invisible') {
          expect(
            files.every(
              (f) =>
                !b.scope.canRead(f.path) &&
                (f.previous_path === undefined || f.status !== 'renamed' || !b.scope.canRead(f.previous_path)),
            ),
          ).toBe(true);
          return;
        }
        // A cut file the perimeter may write is never counted (issue 9: its own commits must not be an oracle).
        const writable = files.filter(
          (f) => b.scope.canWrite(f.path) || (f.previous_path !== undefined && b.scope.canWrite(f.previous_path)),
        ).length;
        // A rename across the boundary counts as its two unpaired sides (visible shown, hidden counted).
        const renames = files.filter((f) => f.status === 'renamed').length;
        expect(view.commit.files.length + view.omitted_count).toBeLessThanOrEqual(files.length + renames);
        expect(view.commit.files.length + view.omitted_count).toBeGreaterThanOrEqual(files.length - writable);
        for (const f of view.commit.files) {
          expect(b.scope.canRead(f.path)).toBe(true);
          if (f.previous_path !== undefined) expect(b.scope.canRead(f.previous_path)).toBe(true);
          for (const hidden of unreadable) expect(f.patch ?? '').not.toContain(`-${hidden}\n`);
        }
      }),
      RUNS,
    );
  });
});
