// Section 1: the pure policy core, in-process: decide throughput, tree filtering, history-prefix derivation.
import { performance } from 'node:perf_hooks';
import {
  bindAgent,
  decide,
  normalizePath,
  filterTree,
  historyPrefixes,
  scopeOf,
  type AgentBinding,
  type Perimeter,
  type TreeEntry,
} from '../src/core/index.js';
import { getFile } from '../src/registry/tools/get_file.js';
import { pushFiles } from '../src/registry/tools/push_files.js';
import { opsPerSecond, round, summarize } from './stats.js';

export const FIVE_GLOBS = [
  'services/api/**',
  'services/web/src/**/*.ts',
  'docs/**/*.md',
  'libs/{core,util}/**',
  'README.md',
];

const perimeter: Perimeter = {
  id: 'bench',
  repo: '/nowhere',
  read: FIVE_GLOBS,
  write: ['services/api/**', 'docs/**/*.md'],
  default_branch: 'main',
  branches: ['main'],
};

/** A recursive tree of `n` entries (files and their directories) over a realistic layout. */
export function syntheticTree(n: number): TreeEntry[] {
  const tops = [
    'services/api',
    'services/web/src',
    'services/worker',
    'docs/guide',
    'libs/core',
    'libs/util',
    'libs/other',
    'infra/aws',
    'tools',
    '.github/workflows',
  ];
  const entries: TreeEntry[] = [];
  const dirs = new Set<string>();
  const sha = '0123456789abcdef0123456789abcdef01234567';
  for (let i = 0; entries.length < n; i++) {
    const top = tops[i % tops.length] as string;
    const path = `${top}/m${(i >> 4) % 40}/f${i}.${i % 7 === 0 ? 'md' : i % 11 === 0 ? 'env' : 'ts'}`;
    const parts = path.split('/');
    for (let d = 1; d < parts.length && entries.length < n; d++) {
      const dir = parts.slice(0, d).join('/');
      if (!dirs.has(dir)) {
        dirs.add(dir);
        entries.push({ path: dir, type: 'dir', sha });
      }
    }
    if (entries.length < n) entries.push({ path, type: 'file', sha, size: 100 + i });
  }
  return entries.sort((a, b) => (a.path < b.path ? -1 : 1));
}

/** A binding over the bare globs (no privacy zones), to show what the built-in zones cost. */
function bareBinding(full: AgentBinding): AgentBinding {
  return { ...full, scope: scopeOf(perimeter), writeGuards: [] };
}

function medianMs(runs: number, fn: () => unknown): { median: number; min: number; max: number; runs: number } {
  const t: number[] = [];
  for (let i = 0; i < runs; i++) {
    const s = performance.now();
    fn();
    t.push(performance.now() - s);
  }
  const sm = summarize(t);
  return { median: sm.median, min: sm.min, max: sm.max, runs };
}

/** Runs section 1. */
export function benchCore(smoke: boolean): Record<string, unknown> {
  const loopMs = smoke ? 100 : 2000;
  const bound = bindAgent(perimeter, undefined);
  if (!bound.ok) throw new Error('bindAgent failed');
  const full = bound.value;
  const bare = bareBinding(full);
  const paths = Array.from({ length: 1024 }, (_, i) =>
    i % 4 === 0
      ? `services/api/h${i}/x.ts`
      : i % 4 === 1
        ? `services/web/src/c/d${i}.ts`
        : i % 4 === 2
          ? `infra/aws/k${i}.tf`
          : `docs/a/b${i}.md`,
  );
  const fileArgs = paths.map((path) => ({ path }));
  const pushArgs = paths.map((p, i) => ({
    message: 'm',
    files: [
      { path: p, content: 'x' },
      { path: `services/api/w${i}.ts`, content: 'y' },
    ],
  }));
  const decideRead = opsPerSecond(loopMs, (i) => decide(full, getFile, fileArgs[i & 1023]).kind === 'allow');
  const decideReadBare = opsPerSecond(loopMs, (i) => decide(bare, getFile, fileArgs[i & 1023]).kind === 'allow');
  const decideWrite = opsPerSecond(loopMs, (i) => decide(full, pushFiles, pushArgs[i & 1023]).kind === 'allow');

  // Where the time goes: one path check with and without the privacy zones, and path validation alone.
  const canReadFull = opsPerSecond(loopMs, (i) => full.scope.canRead(paths[i & 1023] as string));
  const canReadBare = opsPerSecond(loopMs, (i) => bare.scope.canRead(paths[i & 1023] as string));
  const validate = opsPerSecond(loopMs, (i) => normalizePath(paths[i & 1023]).ok);

  const n = smoke ? 10_000 : 100_000;
  const tree = syntheticTree(n);
  const runs = smoke ? 5 : 15;
  const treeFull = medianMs(runs, () => filterTree(tree, full.scope, '', true));
  const treeBare = medianMs(runs, () => filterTree(tree, bare.scope, '', true));
  const treeOneLevel = medianMs(runs, () => filterTree(tree, full.scope, '', false));
  const kept = filterTree(tree, full.scope, '', true).length;

  const prefixGlobs = [
    FIVE_GLOBS,
    ['infra/**'],
    ['**/*.md', 'src/**'],
    ['a/{b,c}/d/**', 'a/b/e.txt', 'x/y/**/*.ts', 'x/z', 'q/**'],
  ];
  const prefixes = opsPerSecond(loopMs, (i) => historyPrefixes(prefixGlobs[i & 3] as string[]).prefixes.length > 0);
  const compile = medianMs(smoke ? 20 : 200, () => bindAgent(perimeter, undefined));

  return {
    decide: {
      get_file_per_s: decideRead,
      get_file_without_privacy_zones_per_s: decideReadBare,
      push_files_2_paths_per_s: decideWrite,
      target_per_s: 1_000_000,
      met: decideRead >= 1_000_000,
      breakdown_per_s: {
        'scope.canRead (with privacy zones)': canReadFull,
        'scope.canRead (globs only)': canReadBare,
        normalizePath: validate,
      },
      note: 'binding from bindAgent (5 read globs + the 43 built-in privacy patterns, case-insensitive); 1,024 distinct paths cycled',
    },
    filter_tree: {
      entries: tree.length,
      globs: FIVE_GLOBS.length,
      visible_entries: kept,
      recursive_ms: treeFull,
      recursive_without_privacy_zones_ms: treeBare,
      one_level_ms: treeOneLevel,
      target_ms: smoke ? null : 50,
      met: smoke ? null : treeFull.median < 50,
    },
    history_prefixes: { derivations_per_s: prefixes, glob_sets: prefixGlobs.length },
    bind_agent_compile_ms: {
      median: round(compile.median, 4),
      note: 'once per perimeter × branch × store revision (bindingResolver caches it)',
    },
  };
}
