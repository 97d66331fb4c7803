// What a write really changes, judged before a ref moves. A request names paths to write and delete, and those were
// judged by `decide`; but a tree cannot hold a file and a directory at one path, so writing `docs/api` over a
// directory `docs/api/` (or `a/b` below a file `a`) replaces one with the other. GitHub's Git Data API does that
// silently; a tree built in an index does it too. The adapters therefore compute the change between the base tree and
// the new tree, and this file decides whether that change may land: every changed path must be one the request named
// (so every changed path was judged writable and unprotected), and is judged again here as defence in depth.
//
// One answer for every structural collision: the message names only the agent's own paths and reads the same whether
// the thing in the way is visible, hidden, a file or a directory, or (for paths below a protected or private file)
// whether it exists at all. What remains observable is documented in SPEC §8 (refused vs committed).
import type { AgentBinding } from './binding.js';

/** The policy a change is judged against: the agent binding's write scope and write guards. */
export type ChangePolicy = { readonly scope: Pick<AgentBinding['scope'], 'canWrite'> } & Pick<
  AgentBinding,
  'writeGuards'
>;

/** What the request asked for, as normalized repository paths. */
export interface RequestedChange {
  readonly writes: readonly string[];
  readonly deletes: readonly string[];
}

/** Outcome of judging a computed change. */
export type ChangeJudgement = { readonly kind: 'allow' } | { readonly kind: 'refuse'; readonly message: string };

const ALLOW: ChangeJudgement = { kind: 'allow' };

function quote(paths: readonly string[]): string {
  const shown = paths
    .slice(0, 20)
    .map((p) => `"${p}"`)
    .join(', ');
  return paths.length > 20 ? `${shown} and ${paths.length - 20} more` : shown;
}

/** The one refusal for a write that collides with the tree's structure. Names only the agent's paths. */
export function structureRefusal(paths: readonly string[]): string {
  const one = paths.length === 1;
  return (
    `push_files refused: ${quote(paths)} cannot be written here: a file and a directory cannot share a path, and ` +
    `${one ? 'this path' : 'these paths'} would (or could) replace files this perimeter may not change. ` +
    `Nothing was written; choose another path.`
  );
}

/** Proper ancestors of `path` (`a`, `a/b` for `a/b/c`). */
export function ancestorsOf(path: string): string[] {
  const out: string[] = [];
  for (let i = path.indexOf('/'); i >= 0; i = path.indexOf('/', i + 1)) out.push(path.slice(0, i));
  return out;
}

function overlaps(a: string, b: string): boolean {
  return a === b || a.startsWith(`${b}/`) || b.startsWith(`${a}/`);
}

/**
 * Judged before any upstream call, whatever exists: a write below a path that, as a file, this perimeter could not
 * change (a protected file, a privacy zone, git metadata) is refused. Without this, `.env/x` would be refused only
 * when a hidden `.env` exists, which tells the agent it does.
 */
export function structuralRefusal(writes: readonly string[], policy: ChangePolicy): string | undefined {
  const refused = writes.filter((p) =>
    ancestorsOf(p).some((a) => policy.writeGuards.some((g) => g([a]) !== undefined)),
  );
  return refused.length > 0 ? structureRefusal(refused) : undefined;
}

/**
 * Judges the paths a write changes between its base tree and its new tree (computed by the adapter). Allowed only
 * when every changed path was named by the request and is writable and unprotected; otherwise nothing may move.
 */
export function judgeChange(
  requested: RequestedChange,
  changed: readonly string[],
  policy: ChangePolicy,
): ChangeJudgement {
  const named = new Set([...requested.writes, ...requested.deletes]);
  const extra = changed.filter((p) => !named.has(p));
  if (extra.length > 0) {
    const culprits = [...named].filter((n) => extra.some((e) => overlaps(e, n)));
    return { kind: 'refuse', message: structureRefusal(culprits.length > 0 ? culprits.sort() : [...named].sort()) };
  }
  const outside = changed.filter((p) => !policy.scope.canWrite(p));
  if (outside.length > 0) {
    return {
      kind: 'refuse',
      message: `push_files refused: ${quote(outside)} ${outside.length === 1 ? 'is' : 'are'} outside this perimeter's write scope. Nothing was written; change only files you are allowed to write.`,
    };
  }
  for (const guard of policy.writeGuards) {
    const refusal = guard(changed);
    if (refusal !== undefined) return { kind: 'refuse', message: refusal };
  }
  return ALLOW;
}
