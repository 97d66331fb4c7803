// The twin check's generator: a *plan* (the visible history both twins share, and for each twin a set of hidden
// variations) and the pair of bare repositories it stands for. The two twins differ only in what the perimeter below
// cannot see; every visible commit has the same tree of visible files, author, committer, dates and message in both.
import * as fc from 'fast-check';
import { Rng } from './rng.js';

/** The perimeter every twin pair is served under (the hidden options are written against it). */
export const TWIN_READ = ['app/**', 'docs/**'] as const;
export const TWIN_WRITE = ['app/**', 'docs/**', 'out/**'] as const;
/** Branches the perimeter allowlists; `wip` (the hidden branch) is never on it. */
export const TWIN_BRANCHES = ['main', 'feature'] as const;
export const HIDDEN_BRANCH = 'wip';

/** What one twin hides (each a generator option, combined at random). */
export const HIDDEN_OPTIONS = [
  'outside', // files outside `read` (and a root README, a look-alike prefix)
  'privacy', // privacy-zone files inside read prefixes
  'privacy-gap', // paths SPEC §4.7 promises to hide that the code may not (class 9)
  'write-only', // files under a write-only prefix
  'hidden-commits', // commits touching only hidden files, before, between and after visible ones
  'hidden-branch', // a branch off the allowlist, with its own commits (visible paths too)
  'link-targets', // the targets of the plan's readable links exist (hidden files and a hidden directory)
  'extra-link', // readable-path links to hidden targets that only this twin has (list_commits residual on its path, SPEC §8)
  'rename-in', // a visible add paired with a hidden delete (similar or dissimilar content)
  'copy-in', // a visible add whose content a hidden file also holds
  'rename-out', // a visible delete paired with a hidden add
  'large', // hidden files past every cap (1 MiB search cap, max_answer_bytes), changed: large hidden diffs
  'non-utf8', // hidden paths that are not valid UTF-8
  'bomb', // hidden lines made for catastrophic regexes (long runs a PCRE match limit trips on)
] as const;
export type HiddenOption = (typeof HIDDEN_OPTIONS)[number];

/** A file's content in a plan: text, a symlink, or null (deleted). Paths spell non-UTF-8 bytes as `%xx`. */
export type PlanFile = string | { symlink: string } | null;

/** One visible commit: its label (what the IdMap maps its ids to), branch, message and visible changes. */
export interface VisibleCommit {
  readonly label: string;
  readonly branch: 'main' | 'feature';
  readonly message: string;
  readonly author: string;
  readonly changes: Readonly<Record<string, PlanFile>>;
}

/** A twin's hidden side: the options it has and the seed its hidden contents are drawn from. */
export interface TwinHidden {
  readonly options: readonly HiddenOption[];
  readonly seed: number;
  /** rename-in / copy-in: similar content (git pairs it) or dissimilar (it does not). */
  readonly similar: boolean;
  /** Self-test only: a *visible* file only this twin has, which the check must report. */
  readonly canary?: true;
}

/** Everything a run needs to rebuild its pair and its calls. */
export interface Plan {
  readonly seed: number;
  readonly run: number;
  readonly visible: readonly VisibleCommit[];
  /** Label of the main commit `feature` forks from (undefined: no feature branch). */
  readonly featureFrom: string | undefined;
  /** Readable links whose targets are hidden (present in both twins; only the targets vary). */
  readonly links: boolean;
  /** The perimeter's `max_answer_bytes` (small, so caps are reached by small repositories). */
  readonly answerCap: number;
  readonly a: TwinHidden;
  readonly b: TwinHidden;
  /** The seed of the driver's argument draws. */
  readonly callSeed: number;
  /** How many calls the driver makes per twin pair. */
  readonly calls: number;
}

const WORDS = [
  'alpha',
  'beta',
  'gamma',
  'TODO',
  'token',
  'needle',
  'config',
  'return',
  'import',
  'café',
  'aaaa',
  'x=1',
  'export',
];
const VISIBLE_BASE = ['app/main.ts', 'app/lib/util.ts', 'app/README.md', 'docs/guide.md', 'docs/api/ref.md'];
const AUTHORS = ['Ana Lima <ana@example.test>', 'Bo Chen <bo@example.test>'];

/** Text of `lines` lines drawn from the word list. */
export function lines(rng: Rng, n: number): string {
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push(Array.from({ length: rng.int(1, 6) }, () => rng.pick(WORDS)).join(' '));
  return `${out.join('\n')}\n`;
}

/** The visible history: main commits c1..cN, optionally a feature branch f1..fM, drawn from `rng`. */
function visibleHistory(
  rng: Rng,
  mainCount: number,
  featureCount: number,
): { commits: VisibleCommit[]; featureFrom: string | undefined } {
  const commits: VisibleCommit[] = [];
  const live = new Map<string, string>();
  let fresh = 0;
  const step = (label: string, branch: 'main' | 'feature', first: boolean): VisibleCommit => {
    const changes: Record<string, PlanFile> = {};
    if (first) {
      for (const p of VISIBLE_BASE) {
        const text = lines(rng, rng.int(1, 30));
        changes[p] = text;
        live.set(p, text);
      }
    } else {
      // At least one add and one modify; a delete and a rename when there is something to spare.
      const add = `app/gen/f${++fresh}.ts`;
      changes[add] = lines(rng, rng.int(2, 20));
      const pool = [...live.keys()].filter((p) => p !== add);
      const mod = rng.pick(pool);
      const modText = lines(rng, rng.int(1, 30));
      changes[mod] = modText;
      live.set(mod, modText);
      const spare = pool.filter((p) => p !== mod && !VISIBLE_BASE.slice(0, 1).includes(p));
      if (spare.length > 1 && rng.chance(0.6)) {
        const del = rng.pick(spare);
        changes[del] = null;
        live.delete(del);
      }
      // A visible rename (similar content), so cross-boundary pairing has a visible pairing to be compared with.
      const movable = [...live.keys()].filter((p) => !(p in changes));
      if (movable.length > 0 && rng.chance(0.4)) {
        const from = rng.pick(movable);
        const to = `docs/moved/m${++fresh}.md`;
        const text = `${live.get(from) ?? ''}moved\n`;
        changes[from] = null;
        changes[to] = text;
        live.delete(from);
        live.set(to, text);
      }
      live.set(add, changes[add] as string);
    }
    return {
      label,
      branch,
      message: `${label}: ${rng.pick(WORDS)} ${rng.pick(WORDS)}\n\nbody ${rng.int(0, 999)}\n`,
      author: rng.pick(AUTHORS),
      changes,
    };
  };
  for (let i = 1; i <= mainCount; i++) commits.push(step(`c${i}`, 'main', i === 1));
  const featureFrom = featureCount > 0 ? `c${rng.int(1, mainCount)}` : undefined;
  for (let i = 1; i <= featureCount; i++) commits.push(step(`f${i}`, 'feature', false));
  return { commits, featureFrom };
}

/** The readable links both twins carry when `plan.links` (targets hidden, a hidden directory, a privacy file, a readable one). */
export const PLAN_LINKS: Readonly<Record<string, { symlink: string }>> = {
  'app/link-key': { symlink: '../secret/key.txt' },
  'app/link-dir': { symlink: '../secret/dir' },
  'app/link-env': { symlink: '.env' },
  'app/link-ok': { symlink: 'main.ts' },
};

/** The links only an `extra-link` twin has (added in c1). */
export const EXTRA_LINKS: Readonly<Record<string, { symlink: string }>> = {
  'app/hl': { symlink: '../secret/key.txt' },
  'app/hd': { symlink: '../secret/dir' },
  // A directory holding nothing but a link to a hidden file: it must read as missing everywhere.
  'app/only-link/l': { symlink: '../../secret/key.txt' },
};

/** The shape of a plan, drawn by fast-check (contents come from seeds it draws). */
export function planArbitrary(seed: number, run: number): fc.Arbitrary<Plan> {
  const opts = fc.subarray([...HIDDEN_OPTIONS], { minLength: 0 });
  const twin = (o: fc.Arbitrary<HiddenOption[]>) =>
    fc.record({ options: o, seed: fc.integer({ min: 1, max: 0x7fffffff }), similar: fc.boolean() });
  return fc
    .record({
      historySeed: fc.integer({ min: 1, max: 0x7fffffff }),
      mainCount: fc.integer({ min: 2, max: 5 }),
      featureCount: fc.integer({ min: 0, max: 2 }),
      links: fc.boolean(),
      answerCap: fc.constantFrom(2048, 4096, 16_384, 65_536, 1_048_576),
      // Twin A is often bare of hidden content: a differing answer then names what B's hidden side changed.
      a: twin(fc.oneof(fc.constant([] as HiddenOption[]), opts)),
      b: twin(fc.subarray([...HIDDEN_OPTIONS], { minLength: 1 })),
      callSeed: fc.integer({ min: 1, max: 0x7fffffff }),
    })
    .map((r) => {
      const { commits, featureFrom } = visibleHistory(new Rng(r.historySeed), r.mainCount, r.featureCount);
      return {
        seed,
        run,
        visible: commits,
        featureFrom,
        links: r.links,
        answerCap: r.answerCap,
        a: r.a,
        b: r.b,
        callSeed: r.callSeed,
        calls: 0,
      };
    });
}

/** The plan of run `run` under `seed` (the same pair every time). */
export function planFor(seed: number, run: number, calls: number): Plan {
  const [plan] = fc.sample(planArbitrary(seed, run), { seed: (seed * 1_000_003 + run) | 0, numRuns: 1 });
  if (!plan) throw new Error('planFor: fast-check drew nothing');
  return { ...plan, calls };
}

/** The plan with one twin's hidden options replaced (the shrinker's move). */
export function withOptions(plan: Plan, twin: 'a' | 'b', options: readonly HiddenOption[]): Plan {
  return { ...plan, [twin]: { ...plan[twin], options } };
}
