// CI results of a commit: check runs (latest per name by default), their annotations, and commit statuses (the
// combined latest-per-context view and the full list). All of it is seeded by tests through `em.pulls`.
import type { Ctx } from './context.js';
import { resolveCommit } from './objects.js';
import type { CheckRunEntry, RepoPulls, StatusEntry } from './pulls-state.js';
import { GitHubError, json, pageParams, paginate, type Reply } from './reply.js';
import { isEmpty, repoFacts } from './resolve.js';
import { emptyRepo } from './routes-content.js';
import { linker } from './routes-repo.js';
import { repoApi, repoShape } from './shapes.js';
import { annotationShape, checkRunShape, statusShape } from './shapes-pulls.js';
import type { RepoEntry } from './state.js';

const DOCS = {
  runs: 'https://docs.github.com/rest/checks/runs#list-check-runs-for-a-git-reference',
  annotations: 'https://docs.github.com/rest/checks/runs#list-check-run-annotations',
  combined: 'https://docs.github.com/rest/commits/statuses#get-the-combined-status-for-a-specific-reference',
  statuses: 'https://docs.github.com/rest/commits/statuses#list-commit-statuses-for-a-reference',
};

/** Check runs of `sha`, newest first; with `latest`, only the newest run of each name (GitHub's default filter). */
export function runsOf(world: RepoPulls, sha: string, latest: boolean): CheckRunEntry[] {
  const all = world.checkRuns.filter((c) => c.sha === sha).sort((a, b) => b.id - a.id);
  if (!latest) return all;
  const seen = new Set<string>();
  return all.filter((c) => !seen.has(c.name) && seen.add(c.name));
}

/** The latest status of each context on `sha`, in the order contexts first appeared. */
export function combinedOf(world: RepoPulls, sha: string): StatusEntry[] {
  const latest = new Map<string, StatusEntry>();
  for (const x of world.statuses) if (x.sha === sha) latest.set(x.context, x);
  return [...latest.values()];
}

async function commitFor(r: RepoEntry, ref: string, docs: string): Promise<string> {
  if (await isEmpty(r.dir)) throw emptyRepo(docs);
  const sha = await resolveCommit(r, ref);
  if (!sha) throw new GitHubError(422, `No commit found for SHA: ${ref}`, docs);
  return sha;
}

/** GET /repos/{o}/{r}/commits/{ref}/check-runs */
export async function listCheckRuns(ctx: Ctx, r: RepoEntry, ref: string): Promise<Reply> {
  const sha = await commitFor(r, ref, DOCS.runs);
  const q = ctx.query;
  let runs = runsOf(ctx.s.pullWorld.of(r), sha, q.get('filter') !== 'all');
  const name = q.get('check_name');
  if (name) runs = runs.filter((c) => c.name === name);
  const status = q.get('status');
  if (status) runs = runs.filter((c) => c.status === status);
  const page = paginate(runs, pageParams(q), linker(ctx));
  return json(
    200,
    { total_count: runs.length, check_runs: page.items.map((c) => checkRunShape(ctx.s, r, c)) },
    page.headers,
  );
}

/** GET /repos/{o}/{r}/check-runs/{id}/annotations */
export function listAnnotations(ctx: Ctx, r: RepoEntry, rawId: string): Promise<Reply> {
  const run = /^\d+$/.test(rawId) ? ctx.s.pullWorld.of(r).checkRuns.find((c) => c.id === Number(rawId)) : undefined;
  if (!run) throw new GitHubError(404, 'Not Found', DOCS.annotations);
  const page = paginate(run.annotations, pageParams(ctx.query), linker(ctx));
  return Promise.resolve(
    json(
      200,
      page.items.map((a) => annotationShape(ctx.s, r, run.sha, a)),
      page.headers,
    ),
  );
}

/** GET /repos/{o}/{r}/commits/{ref}/status */
export async function combinedStatus(ctx: Ctx, r: RepoEntry, ref: string): Promise<Reply> {
  if (await isEmpty(r.dir)) throw emptyRepo(DOCS.combined);
  const sha = await resolveCommit(r, ref);
  if (!sha) throw new GitHubError(404, `No commit found for SHA: ${ref}`, DOCS.combined);
  const all = combinedOf(ctx.s.pullWorld.of(r), sha);
  const state = all.some((x) => x.state === 'error' || x.state === 'failure')
    ? 'failure'
    : all.length === 0 || all.some((x) => x.state === 'pending')
      ? 'pending'
      : 'success';
  const page = paginate(all, pageParams(ctx.query), linker(ctx));
  return json(
    200,
    {
      state,
      statuses: page.items.map((x) => statusShape(ctx.s, r, x, false)),
      sha,
      total_count: all.length,
      repository: repoShape(ctx.s, r, await repoFacts(r), false),
      commit_url: repoApi(ctx.s, r, `commits/${sha}`),
      url: repoApi(ctx.s, r, `commits/${sha}/status`),
    },
    page.headers,
  );
}

/** GET /repos/{o}/{r}/commits/{ref}/statuses: every status, newest first. */
export async function listStatuses(ctx: Ctx, r: RepoEntry, ref: string): Promise<Reply> {
  if (await isEmpty(r.dir)) throw emptyRepo(DOCS.statuses);
  const sha = await resolveCommit(r, ref);
  const all = sha ? ctx.s.pullWorld.of(r).statuses.filter((x) => x.sha === sha) : [];
  all.sort((a, b) => b.id - a.id);
  const page = paginate(all, pageParams(ctx.query), linker(ctx));
  return json(
    200,
    page.items.map((x) => statusShape(ctx.s, r, x, true)),
    page.headers,
  );
}
