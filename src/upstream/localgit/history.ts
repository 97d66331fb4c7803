// Reading history: pages of commits below path prefixes, one commit with its files, and comparisons.
import type { CommitDetail } from '../../core/model.js';
import type { CommitPage, Comparison } from '../types.js';
import { diffFiles } from './diff.js';
import { fail, gitFailure, ok, type Failed } from './errors.js';
import { runGit } from '../../gitcli/run.js';
import { logSummaries, readSummary } from './log.js';
import type { Repo } from './repo.js';
import { isFullId } from './refs.js';
import { isTreePath } from './paths.js';
import { reaches } from './reachability.js';

/** Most commits a comparison lists (GitHub's limit too); counts stay exact. */
export const MAX_COMPARE_COMMITS = 250;

/** Commits reachable from `commit` touching any of `prefixes` ('' = everything), newest first. */
export async function listCommits(
  repo: Repo,
  commit: string,
  query: { readonly paths: readonly string[]; readonly skip: number; readonly limit: number },
): Promise<{ ok: true; value: CommitPage } | Failed> {
  const skip = Math.max(0, Math.floor(query.skip));
  const limit = Math.max(0, Math.floor(query.limit));
  if (limit === 0) return ok({ commits: [], hasMore: false });
  // Pathspecs are literal (--literal-pathspecs) and match a directory prefix segment-wise; a prefix that is not
  // a valid repository path matches nothing.
  const prefixes = query.paths.filter((p) => isTreePath(p));
  if (prefixes.length === 0) return ok({ commits: [], hasMore: false });
  const specs = prefixes.includes('') ? [] : ['--', ...new Set(prefixes)];
  const plain = repo.reach.plain();
  const page = await logSummaries(
    repo,
    [`--skip=${skip}`, `--max-count=${limit + 1}`, commit, ...(specs.length ? specs : ['--'])],
    true,
  );
  if (!page.ok) return page;
  // Every listed commit (and each parent git printed) is reachable from `commit`: a later get_commit of one of
  // them against this head needs no reachability process.
  const listed = page.value.flatMap((c) => [c.sha, ...c.parents]);
  if (plain) repo.reach.reached(commit, listed);
  return ok({ commits: page.value.slice(0, limit), hasMore: page.value.length > limit });
}

/** A commit by full id, its files against the first parent; `reachableFrom` (a resolved commit) must reach it. */
export async function getCommit(
  repo: Repo,
  sha: string,
  reachableFrom?: string,
): Promise<{ ok: true; value: CommitDetail } | Failed> {
  const notFound = fail('not_found', `Commit not found: ${sha}`);
  // Only full ids: an abbreviated one would let a caller probe which prefixes exist.
  if (!isFullId(sha)) return notFound;
  // Type, header and diff come from the repository's long-lived readers: the reachability check is the one process.
  const [kind] = await repo.reader.info([sha]);
  if (!kind?.found || kind.type !== 'commit') return notFound;
  if (reachableFrom !== undefined) {
    const reach = await reaches(repo, sha, reachableFrom);
    if (!reach.ok) return gitFailure(reach.run, 'checking reachability', repo.log);
    if (!reach.value) return notFound;
  }
  let summary = await readSummary(repo, sha);
  if (!summary) {
    const header = await logSummaries(repo, ['--no-walk', sha], false);
    if (!header.ok) return header;
    summary = header.value[0];
  }
  if (!summary) throw new Error('git log printed no commit for an existing commit id');
  // A commit reachable from the head has its parents reachable too: walking back one get_commit at a time is free.
  if (reachableFrom !== undefined) repo.reach.reached(reachableFrom, summary.parents);
  const files = await diffFiles(repo, summary.parents[0] ?? null, sha);
  if (!files.ok) return files;
  return ok({
    sha: summary.sha,
    message: summary.message,
    author: summary.author,
    committer: summary.committer,
    parents: summary.parents,
    files: files.value,
  });
}

async function count(repo: Repo, range: string): Promise<{ ok: true; value: number } | Failed> {
  const run = await runGit(['rev-list', '--count', range], repo.call);
  if (run.code !== 0) return gitFailure(run, 'comparing commits', repo.log);
  return ok(Number(run.stdout.toString('utf8').trim()));
}

/** Compares two resolved commits the way GitHub's compare does (commits oldest first, files from the merge base). */
export async function compare(
  repo: Repo,
  base: string,
  head: string,
): Promise<{ ok: true; value: Comparison } | Failed> {
  const mb = await runGit(['merge-base', base, head], repo.call);
  if (mb.code === 1) return fail('not_found', 'The two refs have no common history.');
  if (mb.code !== 0) return gitFailure(mb, 'comparing commits', repo.log);
  const mergeBase = mb.stdout.toString('utf8').trim();
  const ahead = await count(repo, `${base}..${head}`);
  if (!ahead.ok) return ahead;
  const behind = await count(repo, `${head}..${base}`);
  if (!behind.ok) return behind;
  const status: Comparison['status'] =
    ahead.value === 0 && behind.value === 0
      ? 'identical'
      : behind.value === 0
        ? 'ahead'
        : ahead.value === 0
          ? 'behind'
          : 'diverged';
  let commits: Comparison['commits'] = [];
  if (ahead.value > 0) {
    const list = await logSummaries(repo, ['--reverse', `${base}..${head}`], true);
    if (!list.ok) return list;
    commits = list.value.slice(0, MAX_COMPARE_COMMITS);
  }
  const files = await diffFiles(repo, mergeBase, head);
  if (!files.ok) return files;
  return ok({
    status,
    ahead_by: ahead.value,
    behind_by: behind.value,
    merge_base: mergeBase,
    commits,
    files: files.value,
    files_complete: true,
  });
}
