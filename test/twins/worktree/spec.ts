// What a pair of working-tree twins is made of: the part both share (visible history and working-tree state) and the
// part each hides, drawn by fast-check. generate.ts builds the repositories from it.
import fc from 'fast-check';

/**
 * The perimeter both twins are served under (the same spec on both servers). `wide` adds a read glob without a literal
 * prefix (`**\/*.md`; no hidden file is a .md), so git is never narrowed to app/ and sees every hidden path.
 */
export function perimeterOf(s: Shared): { read: string[]; write: string[]; branches: string[] } {
  return { read: s.wide ? ['app/**', '**/*.md'] : ['app/**'], write: ['app/**', 'wo/**'], branches: ['main', 'other'] };
}

/** What both twins share: the visible history and the visible working-tree state. */
export interface Shared {
  /** The perimeter reads a glob without a literal prefix too (see perimeterOf). */
  readonly wide: boolean;
  /** Visible commits on main after the root (1..3); `other` forks from the one before the last. */
  readonly visible: number;
  /** main's last commit and other's both change app/c.txt. */
  readonly visibleConflict: boolean;
  /** `git merge other` was run and stopped (only with visibleConflict). */
  readonly mergeStopped: boolean;
  /** In the stopped merge, other renamed hidden secret/r.txt to app/r.txt while main changed secret/r.txt; the working file was then resolved by hand. */
  readonly renameConflict: boolean;
  readonly modified: boolean;
  readonly staged: boolean;
  readonly untracked: boolean;
  readonly ignored: boolean;
  /** app/moved.ts staged as added (a hidden deletion may pair with it). */
  readonly renameIn: boolean;
  /** app/out.ts staged as deleted (a hidden addition may pair with it). */
  readonly renameOut: boolean;
}

export type Pairing = 'none' | 'similar' | 'dissimilar';

/** What one twin hides; drawn independently for each twin. */
export interface Hidden {
  /** Content variant of every hidden file (so twins differ even with the same flags). */
  readonly seed: number;
  /** Hidden-only commits (touching secret/ or the privacy zone app/.env.local) after each visible commit. */
  readonly commitsAfter: readonly number[];
  /** 110 hidden-only commits on the privacy zone inside the read prefix (past the 100-commit churn window). */
  readonly many: boolean;
  /** Commits on the branch `hid` (not allowlisted), touching app/ files. */
  readonly hidBranch: number;
  /** A file main and other both change: hidden (secret/), write-only (wo/) or privacy zone (app/.env.local). */
  readonly conflict: 'none' | 'secret' | 'wo' | 'zone';
  readonly modified: boolean;
  readonly staged: boolean;
  readonly untracked: number;
  /** 240 untracked hidden files with long names (past a 32 KiB status cap). */
  readonly manyUntracked: boolean;
  readonly ignored: boolean;
  /** Untracked app/.env (privacy zone inside the read prefix). */
  readonly env: boolean;
  /** app/.env.local modified on disk. */
  readonly zoneModified: boolean;
  /** wo/w.txt (write-only) modified on disk. */
  readonly writeOnly: boolean;
  /** Untracked app/link-file -> ../secret/k.txt. */
  readonly linkFile: boolean;
  /** Untracked app/link-dir -> ../secret. */
  readonly linkDir: boolean;
  /** Committed app/link-c -> ../secret/k.txt. */
  readonly linkCommitted: boolean;
  /** The pairing, huge and non-UTF-8 files live in privacy zones under app/ (app/.env.*) instead of secret/. */
  readonly zone: boolean;
  /** secret/s.ts staged as deleted, similar to app/moved.ts or not. */
  readonly renameIn: Pairing;
  /** secret/out.ts staged as added, similar to app/out.ts or not. */
  readonly renameOut: Pairing;
  /** secret/huge.txt rewritten past the diff cap, on disk or staged. */
  readonly huge: 'none' | 'unstaged' | 'staged';
  /** Hidden paths that are not valid UTF-8: one committed and modified, one new and staged. */
  readonly nonUtf8: boolean;
  /** An uninitialised submodule at secret/sub (.gitmodules at the root). */
  readonly submodule: boolean;
  /** A stash entry of a hidden file. */
  readonly stash: boolean;
  /** secret/k.txt holds something the secret scanner flags. */
  readonly keyIsSecret: boolean;
}

export interface TwinSpec {
  readonly shared: Shared;
  readonly a: Hidden;
  readonly b: Hidden;
}

/** One built twin: its directory and the commit ids the driver needs. */
export interface Twin {
  readonly dir: string;
  /** Visible commits by label (V0…Vn on main, O1 on other). */
  readonly visible: ReadonlyMap<string, string>;
  /** Commits the perimeter cannot see, by label (H… hidden-only on main, B… on hid, S0 the stash); absent ones are not in the map. */
  readonly hidden: ReadonlyMap<string, string>;
  cleanup(): Promise<void>;
}

/** Labels of hidden commits the driver may name (a twin lacking one gets a made-up id under the same label). */
export const HIDDEN_LABELS = ['H0', 'H1', 'Hlast', 'B1', 'B2', 'S0'] as const;

const sharedArb: fc.Arbitrary<Shared> = fc
  .record({
    wide: fc.boolean(),
    visible: fc.integer({ min: 1, max: 3 }),
    visibleConflict: fc.boolean(),
    mergeStopped: fc.boolean(),
    renameConflict: fc.boolean(),
    modified: fc.boolean(),
    staged: fc.boolean(),
    untracked: fc.boolean(),
    ignored: fc.boolean(),
    renameIn: fc.boolean(),
    renameOut: fc.boolean(),
  })
  .map((s) => ({
    ...s,
    mergeStopped: s.mergeStopped && s.visibleConflict,
    renameConflict: s.renameConflict && s.mergeStopped && s.visibleConflict,
  }));

const pairing = fc.constantFrom<Pairing>('none', 'similar', 'dissimilar');
/** A flag that is on about one time in four (the costlier variations); fast-check biases integers to the minimum, so the maximum is the rare end. */
const rare = fc.integer({ min: 0, max: 3 }).map((n) => n === 3);

/** One twin's hidden part. */
export const hiddenArb: fc.Arbitrary<Hidden> = fc.record({
  seed: fc.integer({ min: 0, max: 3 }),
  commitsAfter: fc.array(fc.integer({ min: 0, max: 2 }), { minLength: 4, maxLength: 4 }),
  many: rare,
  hidBranch: fc.integer({ min: 0, max: 2 }),
  conflict: fc.constantFrom('none', 'secret', 'wo', 'zone'),
  modified: fc.boolean(),
  staged: fc.boolean(),
  untracked: fc.integer({ min: 0, max: 2 }),
  manyUntracked: rare,
  ignored: fc.boolean(),
  env: fc.boolean(),
  zoneModified: fc.boolean(),
  writeOnly: fc.boolean(),
  linkFile: fc.boolean(),
  linkDir: fc.boolean(),
  linkCommitted: fc.boolean(),
  zone: fc.boolean(),
  renameIn: pairing,
  renameOut: pairing,
  huge: fc.constantFrom('none', 'none', 'unstaged', 'staged'),
  nonUtf8: fc.boolean(),
  submodule: fc.boolean(),
  stash: fc.boolean(),
  keyIsSecret: fc.boolean(),
});

/**
 * A pair of twins to build. About one pair in six differs only in write-only files (wo/): there even the opaque
 * `omitted_count` must match, since SPEC §4.11 never counts write-only paths.
 */
export const twinSpecArb: fc.Arbitrary<TwinSpec> = fc
  .record({
    shared: sharedArb,
    a: hiddenArb,
    b: hiddenArb,
    onlyWriteOnly: fc.integer({ min: 0, max: 5 }).map((n) => n === 5),
  })
  .map(({ shared, a, b, onlyWriteOnly }) => {
    if (!onlyWriteOnly) return { shared, a, b };
    const woOr = (h: Hidden): Hidden['conflict'] => (h.conflict === 'wo' ? 'wo' : 'none');
    const base = { ...a, conflict: woOr(a) };
    return { shared, a: base, b: { ...base, writeOnly: !a.writeOnly, conflict: woOr(b) } };
  });

/** True when the twins differ in write-only files only. */
export function onlyWriteOnlyDiffers(spec: TwinSpec): boolean {
  const strip = (h: Hidden) =>
    JSON.stringify({ ...h, writeOnly: false, conflict: h.conflict === 'wo' ? 'none' : h.conflict });
  return strip(spec.a) === strip(spec.b);
}
