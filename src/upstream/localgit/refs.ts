// Which ref strings we resolve, and how. Only names and full object ids: revision expressions (`a~1`, `a:path`,
// `a^{/re}`, `@{-1}`) and abbreviated ids are refused, so a caller can neither reach objects by path syntax nor
// probe for commits by prefix.
import { fail, gitFailure, ok, type Failed } from './errors.js';
import { runGit } from '../../gitcli/run.js';
import type { ObjectInfo } from '../../gitcli/object-reader.js';
import type { Repo } from './repo.js';

/** git-blinder's own refs (restore points of workspace writes): never resolved for a caller. */
const PRIVATE_NAMESPACE = 'refs/git-blinder/';

const FULL_ID = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;
// git's check-ref-format rules, as one expression: control chars, space and ~^:?*[\, "..", "@{", "//",
// a leading "-", "/" or ".", a component starting with "." or ending with ".lock", a trailing "/" or ".".
const BAD_REF = /[\p{Cc} ~^:?*[\\]|\.\.|@\{|\/\/|^[-/.]|\/\.|\.lock(?:\/|$)|[/.]$/u;

/** True for a full (40 or 64 lowercase hex) object id. */
export function isFullId(s: string): boolean {
  return FULL_ID.test(s);
}

/** True when `name` could be a ref name (a cheap, shell-free subset of `git check-ref-format`). */
export function isRefName(name: string): boolean {
  return name !== '' && name !== '@' && !BAD_REF.test(name);
}

/** The refs a name may mean, in the order git's DWIM would try them. */
function candidates(ref: string): string[] {
  if (!isRefName(ref)) return [];
  if (ref === 'HEAD') return ['HEAD'];
  // Restore points are the operator's: no caller of this upstream resolves them, so they read as nonexistent.
  if (ref.startsWith('refs/')) return ref.startsWith(PRIVATE_NAMESPACE) ? [] : [ref];
  return [`refs/heads/${ref}`, `refs/tags/${ref}`];
}

/** True when the repository has no commit at all (no ref and no HEAD). */
export async function isEmpty(repo: Repo): Promise<boolean> {
  const refs = await runGit(['for-each-ref', '--count=1', '--format=%(refname)'], repo.call);
  if (refs.code !== 0 || refs.stdout.length > 0) return false;
  const head = await runGit(['rev-parse', '-q', '--verify', 'HEAD^{commit}'], repo.call);
  return head.code !== 0;
}

/**
 * The names git's DWIM would also try for `name` (refs.c `ref_rev_parse_rules`) when `name` itself is no ref: if
 * none of them exists, an answer for `name` can only be `name` itself.
 */
function dwimFallbacks(name: string): string[] {
  return [
    `refs/${name}`,
    `refs/tags/${name}`,
    `refs/heads/${name}`,
    `refs/remotes/${name}`,
    `refs/remotes/${name}/HEAD`,
  ];
}

/**
 * Looks up full ref names exactly, each peeled with `peel` (e.g. `^{commit}`), in one round trip of
 * the object reader; git reads loose and packed refs afresh for every request. Undefined when git would have had
 * to guess (a ref named like a DWIM expansion of another exists): the caller then asks a one-shot command. (A ref
 * that exists answers for itself — DWIM tries the name first — so the expansions matter only for a missing one.)
 */
async function exactLookup(
  repo: Repo,
  names: readonly string[],
  peel: string,
): Promise<(string | undefined)[] | undefined> {
  const asked = names.map((n) => `${n}${peel}`);
  const found = (infos: readonly ObjectInfo[]) => names.map((_, k) => (infos[k]?.found ? infos[k].sha : undefined));
  // One line per name when no DWIM expansion of a `refs/…` name exists, proven before the line goes out.
  if (names.every((n) => n.startsWith('refs/')) && repo.shadows.clear()) return found(await repo.reader.info(asked));
  const infos = await repo.reader.info([...asked, ...names.flatMap(dwimFallbacks)]);
  if (infos.slice(names.length).some((i) => i.found)) return undefined;
  return found(infos);
}

/** The id `name` (a full ref name) points at, read exactly by `show-ref --verify`; undefined when missing. */
async function exactRef(repo: Repo, name: string): Promise<string | undefined | Failed> {
  const run = await runGit(['show-ref', '--verify', '--hash', name], repo.call);
  if (run.code === 0) return run.stdout.toString('utf8').trim();
  if (run.code !== 1 && run.code !== 128) return gitFailure(run, 'resolving a ref', repo.log);
  return undefined;
}

/**
 * A full id's commit: kept by id once peeled, else peeled to its commit and tree in one round trip (the pair is then
 * kept for the id and its commit). Undefined when the id names no commit.
 */
async function peelFullId(repo: Repo, id: string): Promise<string | undefined> {
  const kept = repo.commits.get(id);
  if (kept) return kept.commit;
  const [commit, tree] = await repo.reader.info([`${id}^{commit}`, `${id}^{tree}`]);
  if (!commit?.found) return undefined;
  if (tree?.found && tree.type === 'tree') {
    const pair = { commit: commit.sha, tree: tree.sha };
    repo.commits.set(id, pair);
    if (commit.sha !== id) repo.commits.set(commit.sha, pair);
  }
  return commit.sha;
}

/** The commit a branch or tag name means, taken exactly; undefined when none. */
async function namedCommit(repo: Repo, ref: string): Promise<string | undefined | Failed> {
  const names = candidates(ref);
  if (names.length === 0) return undefined;
  const exact = await exactLookup(repo, names, '^{commit}');
  if (exact) return exact.find((s) => s !== undefined);
  // `show-ref --verify` takes the name exactly (rev-parse would DWIM it too); the reader then peels the id.
  for (const c of names) {
    const id = await exactRef(repo, c);
    if (typeof id === 'object') return id;
    if (id === undefined) continue;
    const [peeled] = await repo.reader.info([`${id}^{commit}`]);
    if (peeled?.found) return peeled.sha;
  }
  return undefined;
}

/** Resolves a branch, tag or full commit id to a commit id; `not_found` (or `empty_repository`) otherwise. */
export async function resolveCommit(repo: Repo, ref: string): Promise<{ ok: true; value: string } | Failed> {
  // A full id is most often a branch head the caller has just read.
  const hit = isFullId(ref) ? await peelFullId(repo, ref) : await namedCommit(repo, ref);
  if (typeof hit === 'object') return hit;
  if (hit !== undefined) return ok(hit);
  if (await isEmpty(repo)) return fail('empty_repository', 'The repository has no commits yet.');
  return fail('not_found', `Ref not found: ${ref}`);
}

/** Validates a branch name the way `git check-ref-format` does for `refs/heads/<name>`. */
export async function checkBranchName(repo: Repo, branch: string): Promise<{ ok: true; value: string } | Failed> {
  // `--branch` would expand `@{-1}` against the repository, so we check the full ref name instead.
  if (!isRefName(branch) || branch === 'HEAD') return fail('invalid', `Not a valid branch name: ${branch}`);
  const run = await runGit(['check-ref-format', `refs/heads/${branch}`], repo.call);
  if (run.code === 0) return ok(branch);
  if (run.code === 1) return fail('invalid', `Not a valid branch name: ${branch}`);
  return gitFailure(run, 'checking a branch name', repo.log);
}

/** The head of `refs/heads/<branch>`; `not_found` when missing, `empty_repository` when nothing exists yet. */
export async function branchHead(repo: Repo, branch: string): Promise<{ ok: true; value: string } | Failed> {
  // The same rules as `git check-ref-format` (isRefName is that subset), without a process.
  if (!isRefName(branch) || branch === 'HEAD') return fail('invalid', `Not a valid branch name: ${branch}`);
  const exact = await exactLookup(repo, [`refs/heads/${branch}`], '');
  if (exact?.[0] !== undefined) return ok(exact[0]);
  if (!exact) {
    const id = await exactRef(repo, `refs/heads/${branch}`);
    if (typeof id === 'object') return id;
    if (id !== undefined) return ok(id);
  }
  if (await isEmpty(repo)) return fail('empty_repository', 'The repository has no commits yet.');
  return fail('not_found', `Branch not found: ${branch}`);
}
