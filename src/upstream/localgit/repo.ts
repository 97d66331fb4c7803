// Opening a repository by absolute path: bare or with a working tree, never a parent directory's repository.
import { realpath, stat } from 'node:fs/promises';
import { dirname, isAbsolute, resolve } from 'node:path';
import { fail, gitFailure, ok, type Failed, type Log } from './errors.js';
import { runGit, type GitCall } from '../../gitcli/run.js';
import { createObjectReader, type ObjectReader } from '../../gitcli/object-reader.js';
import { createTreeReader, type TreeReader } from '../../gitcli/tree-objects.js';
import { createDiffReader, type DiffReader } from '../../gitcli/diff-reader.js';
import { createListingCache, type ListingCache } from './listing-cache.js';
import { createCommitTrees, type CommitTrees } from './commit-trees.js';
import { createReachCache, type ReachCache } from './reachability.js';
import { createShadowProof, type ShadowProof } from './ref-shadows.js';
import { DIFF_READER_ARGS, MAX_DIFF_BYTES } from './diff.js';

/** An opened repository. Reads run with GIT_DIR set, so a working tree is never consulted. */
export interface Repo {
  /** The path as the caller sent it (also the `name` in listRepos). */
  readonly name: string;
  readonly gitDir: string;
  /** Shared by all linked worktrees: the identity used for write serialisation. */
  readonly commonDir: string;
  readonly bare: boolean;
  readonly call: GitCall;
  readonly log: Log;
  /** The repository's long-lived object reader (started on first use; ended when the repository is dropped). */
  readonly reader: ObjectReader;
  /** Tree objects through `reader`, cached by id. */
  readonly trees: TreeReader;
  /** Recursive listings by tree id (immutable, so never stale). */
  readonly listings: ListingCache;
  /** Full ids already peeled to a commit, with its root tree (immutable, so never stale). */
  readonly commits: CommitTrees;
  /** The repository's long-lived tree-to-tree diff process (started on first use). */
  readonly diffs: DiffReader;
  /** Whether a ref could stand in for an exact ref name under git's DWIM rules (re-checked per lookup). */
  readonly shadows: ShadowProof;
  /** Reachability answers by commit-id pair (kept only while the commit graph is git's plain one). */
  readonly reach: ReachCache;
}

/** Ends a repository's long-lived processes (it was dropped, or the upstream is closing). */
export function closeRepo(repo: Repo): void {
  repo.reader.end();
  repo.diffs.end();
}

/** Opens `path` as a repository: `invalid` when relative, `not_found` when it is not a repository root. */
export async function openRepo(path: string, log: Log): Promise<{ ok: true; value: Repo } | Failed> {
  if (typeof path !== 'string' || path === '' || !isAbsolute(path)) {
    return fail('invalid', 'A local repository is named by its absolute path.');
  }
  let real: string;
  try {
    real = await realpath(path);
    if (!(await stat(real)).isDirectory()) return fail('not_found', `Repository not found: ${path}`);
  } catch {
    return fail('not_found', `Repository not found: ${path}`);
  }
  // The ceiling stops discovery at `path` itself: a subdirectory of some other repository is not a repository.
  const run = await runGit(['rev-parse', '--absolute-git-dir', '--git-common-dir', '--is-bare-repository'], {
    cwd: real,
    env: { GIT_CEILING_DIRECTORIES: dirname(real) },
  });
  if (run.code === 128) return fail('not_found', `Repository not found: ${path}`);
  if (run.code !== 0) return gitFailure(run, 'opening a repository', log);
  const [gitDir, common, bare] = run.stdout.toString('utf8').split('\n');
  if (!gitDir || !common || !bare) throw new Error('git rev-parse printed fewer lines than asked for');
  // Inside a working tree's subdirectory git would report the toplevel's .git; refuse anything but the root.
  if (bare === 'false') {
    const top = await runGit(['rev-parse', '--show-toplevel'], {
      cwd: real,
      env: { GIT_CEILING_DIRECTORIES: dirname(real) },
    });
    if (top.code !== 0 || top.stdout.toString('utf8').trim() !== real)
      return fail('not_found', `Repository not found: ${path}`);
  } else if (resolve(real, gitDir) !== real && resolve(real, common) !== real) {
    return fail('not_found', `Repository not found: ${path}`);
  }
  const commonDir = resolve(real, common);
  const reader = createObjectReader({ gitDir });
  return ok({
    name: path,
    gitDir,
    commonDir,
    bare: bare === 'true',
    call: { cwd: gitDir, gitDir },
    log,
    reader,
    trees: createTreeReader(reader),
    listings: createListingCache(),
    commits: createCommitTrees(),
    diffs: createDiffReader(gitDir, DIFF_READER_ARGS, MAX_DIFF_BYTES),
    shadows: createShadowProof(commonDir),
    reach: createReachCache(commonDir),
  });
}
