// Pull requests: create, list (head `owner:branch` and base filters), get (mergeability by a real merge-tree), files
// (merge base → head, at most 3,000, pages of at most 100), commits (at most 250), reviews, review comments and the
// conversation (issue) comments of a PR.
import type { Ctx } from './context.js';
import { jsonBody, missing, wrongType } from './context.js';
import type { FileChange } from './diff.js';
import { countCommits, log } from './git.js';
import { resolveCommit } from './objects.js';
import {
  mergeBase,
  mergeTree,
  pullChanges,
  refresh,
  type PullEntry,
  type RepoPulls,
  type ReviewCommentEntry,
} from './pulls-state.js';
import { GitHubError, json, pageParams, paginate, type Reply } from './reply.js';
import { isEmpty, repoFacts } from './resolve.js';
import { diffEntry } from './routes-commits.js';
import { emptyRepo } from './routes-content.js';
import { linker } from './routes-repo.js';
import { runsOf, combinedOf } from './routes-checks.js';
import { commitShape } from './shapes.js';
import { issueCommentShape, pullShape, reviewCommentShape, reviewShape } from './shapes-pulls.js';
import type { RepoEntry } from './state.js';

const DOCS = {
  list: 'https://docs.github.com/rest/pulls/pulls#list-pull-requests',
  create: 'https://docs.github.com/rest/pulls/pulls#create-a-pull-request',
  get: 'https://docs.github.com/rest/pulls/pulls#get-a-pull-request',
  files: 'https://docs.github.com/rest/pulls/pulls#list-pull-requests-files',
  commits: 'https://docs.github.com/rest/pulls/pulls#list-commits-on-a-pull-request',
  reviews: 'https://docs.github.com/rest/pulls/reviews#list-reviews-for-a-pull-request',
  reviewComments: 'https://docs.github.com/rest/pulls/comments#list-review-comments-on-a-pull-request',
  issueComments: 'https://docs.github.com/rest/issues/comments#list-issue-comments',
};

/** The most files the files list serves, and the most commits the commits list serves (GitHub's caps). */
export const PULL_FILES_MAX = 3000;
export const PULL_COMMITS_MAX = 250;

function validation(docs: string, error: Record<string, unknown>): GitHubError {
  return new GitHubError(422, 'Validation Failed', docs, { errors: [{ resource: 'PullRequest', ...error }] });
}

/** The PR numbered `raw` (refreshed from its branches), or GitHub's 404. */
async function pullOf(ctx: Ctx, r: RepoEntry, raw: string, docs: string): Promise<PullEntry> {
  const world = ctx.s.pullWorld.of(r);
  const p = /^\d+$/.test(raw) ? world.find(Number(raw)) : undefined;
  if (!p) throw new GitHubError(404, 'Not Found', docs);
  await refresh(world, r, p);
  return p;
}

/** GET /repos/{o}/{r}/pulls */
export async function listPulls(ctx: Ctx, r: RepoEntry): Promise<Reply> {
  const q = ctx.query;
  const state = q.get('state') ?? 'open';
  if (!['open', 'closed', 'all'].includes(state)) {
    throw new GitHubError(422, 'Validation Failed', DOCS.list, {
      errors: [{ resource: 'Issue', field: 'state', code: 'invalid' }],
    });
  }
  const world = ctx.s.pullWorld.of(r);
  await Promise.all(world.pulls.map((p) => refresh(world, r, p)));
  let pulls = world.pulls.filter((p) => state === 'all' || p.state === state);
  // `head` filters only as `owner:branch`; a bare branch name is silently ignored (GitHub's documented pitfall).
  const head = q.get('head');
  const colon = head ? head.indexOf(':') : -1;
  if (head && colon >= 0) {
    const owner = head.slice(0, colon).toLowerCase();
    const branch = head.slice(colon + 1);
    pulls = pulls.filter((p) => p.headRepo.split('/')[0]?.toLowerCase() === owner && p.head === branch);
  }
  const base = q.get('base');
  if (base) pulls = pulls.filter((p) => p.base === base);
  const sort = q.get('sort') ?? 'created';
  const key = (p: PullEntry): string => (sort === 'updated' ? p.updatedAt : p.createdAt);
  const desc = (q.get('direction') ?? (sort === 'created' || !q.has('sort') ? 'desc' : 'asc')) === 'desc';
  pulls = [...pulls].sort((a, b) => (key(a) === key(b) ? a.number - b.number : key(a) < key(b) ? -1 : 1));
  if (desc) pulls.reverse();
  const page = paginate(pulls, pageParams(q), linker(ctx));
  const facts = await repoFacts(r);
  return json(
    200,
    page.items.map((p) => pullShape(ctx.s, r, p, facts)),
    page.headers,
  );
}

/** GET /repos/{o}/{r}/pulls/{n}: the full PR with counts and mergeability. */
export async function getPull(ctx: Ctx, r: RepoEntry, raw: string): Promise<Reply> {
  const p = await pullOf(ctx, r, raw, DOCS.get);
  return json(200, await fullShape(ctx, r, p));
}

async function fullShape(ctx: Ctx, r: RepoEntry, p: PullEntry): Promise<Record<string, unknown>> {
  const world = ctx.s.pullWorld.of(r);
  const [files, mb, facts] = await Promise.all([pullChanges(ctx.s.pullWorld, r, p), mergeBase(r, p), repoFacts(r)]);
  const commits = await countCommits(r.dir, [`${mb}..${p.headSha}`]);
  let mergeable: boolean | null = null;
  let mergeableState = 'unknown';
  if (p.state === 'open') {
    mergeable = (await mergeTree(r, p)) !== null;
    mergeableState = p.draft ? 'draft' : !mergeable ? 'dirty' : ciFailing(world, p.headSha) ? 'unstable' : 'clean';
  }
  return pullShape(ctx.s, r, p, facts, {
    mergeable,
    mergeableState,
    commits,
    additions: files.reduce((n, f) => n + f.additions, 0),
    deletions: files.reduce((n, f) => n + f.deletions, 0),
    changedFiles: files.length,
    comments: world.issueComments.filter((c) => c.pull === p.number).length,
    reviewComments: world.reviewComments.filter((c) => c.pull === p.number).length,
  });
}

/** True when a latest check run or status of `sha` is anything but a pass (GitHub's `unstable`). */
function ciFailing(world: RepoPulls, sha: string): boolean {
  const passed = new Set(['success', 'neutral', 'skipped']);
  return (
    runsOf(world, sha, true).some((c) => c.status !== 'completed' || !passed.has(c.conclusion ?? '')) ||
    combinedOf(world, sha).some((x) => x.state !== 'success')
  );
}

/** POST /repos/{o}/{r}/pulls */
export async function createPull(ctx: Ctx, r: RepoEntry): Promise<Reply> {
  const body = jsonBody(ctx, DOCS.create);
  for (const field of ['title', 'head', 'base'] as const) {
    const v = body[field];
    if (v === undefined) throw missing(field, DOCS.create);
    if (typeof v !== 'string') throw wrongType(field, v, 'a string', DOCS.create);
  }
  for (const field of ['body'] as const)
    if (body[field] !== undefined && body[field] !== null && typeof body[field] !== 'string')
      throw wrongType(field, body[field], 'a string', DOCS.create);
  if (body.draft !== undefined && typeof body.draft !== 'boolean')
    throw wrongType('draft', body.draft, 'a boolean', DOCS.create);
  const [title, rawHead, base] = [body.title, body.head, body.base] as [string, string, string];
  if (await isEmpty(r.dir)) throw emptyRepo(DOCS.create);
  // `owner:branch` names the head's repository; only this repository's own owner is served (no forks here).
  const colon = rawHead.indexOf(':');
  const head = colon < 0 ? rawHead : rawHead.slice(colon + 1);
  if (colon >= 0 && rawHead.slice(0, colon).toLowerCase() !== r.owner.toLowerCase())
    throw validation(DOCS.create, { field: 'head', code: 'invalid' });
  if (title.trim() === '') throw validation(DOCS.create, { field: 'title', code: 'missing_field' });
  const [headSha, baseSha] = await Promise.all([
    resolveCommit(r, `refs/heads/${head}`),
    resolveCommit(r, `refs/heads/${base}`),
  ]);
  if (!baseSha) throw validation(DOCS.create, { field: 'base', code: 'invalid' });
  if (!headSha) throw validation(DOCS.create, { field: 'head', code: 'invalid' });
  const world = ctx.s.pullWorld.of(r);
  await Promise.all(world.pulls.map((p) => refresh(world, r, p)));
  if (world.pulls.some((p) => p.state === 'open' && p.head === head && p.base === base && p.headRepo === r.fullName))
    throw validation(DOCS.create, { code: 'custom', message: `A pull request already exists for ${r.owner}:${head}.` });
  const probe = { baseSha, headSha } as PullEntry;
  if ((await countCommits(r.dir, [`${await mergeBase(r, probe)}..${headSha}`])) === 0)
    throw validation(DOCS.create, { code: 'custom', message: `No commits between ${base} and ${head}` });
  const when = world.now();
  const p: PullEntry = {
    number: world.pulls.reduce((n, x) => Math.max(n, x.number), 0) + 1,
    id: world.nextId('pull'),
    title,
    body: typeof body.body === 'string' ? body.body : null,
    head,
    headRepo: r.fullName,
    base,
    draft: body.draft === true,
    state: 'open',
    merged: false,
    mergeCommit: null,
    headSha,
    baseSha,
    user: ctx.s.user.login,
    createdAt: when,
    updatedAt: when,
    closedAt: null,
    mergedAt: null,
  };
  world.pulls.push(p);
  const shape = await fullShape(ctx, r, p);
  return json(201, shape, { location: String(shape.url) });
}

/** GET /repos/{o}/{r}/pulls/{n}/files */
export async function listPullFiles(ctx: Ctx, r: RepoEntry, raw: string): Promise<Reply> {
  const p = await pullOf(ctx, r, raw, DOCS.files);
  const files = (await pullChanges(ctx.s.pullWorld, r, p)).slice(0, PULL_FILES_MAX);
  const page = paginate(files, pageParams(ctx.query), linker(ctx));
  return json(
    200,
    page.items.map((f) => diffEntry(ctx, r, p.headSha, f)),
    page.headers,
  );
}

/** GET /repos/{o}/{r}/pulls/{n}/commits: oldest first, at most 250. */
export async function listPullCommits(ctx: Ctx, r: RepoEntry, raw: string): Promise<Reply> {
  const p = await pullOf(ctx, r, raw, DOCS.commits);
  const mb = await mergeBase(r, p);
  const commits = (await log(r.dir, ['--reverse', `${mb}..${p.headSha}`])).slice(0, PULL_COMMITS_MAX);
  const page = paginate(commits, pageParams(ctx.query), linker(ctx));
  return json(
    200,
    page.items.map((c) => commitShape(ctx.s, r, c)),
    page.headers,
  );
}

/** GET /repos/{o}/{r}/pulls/{n}/reviews: chronological. */
export async function listReviews(ctx: Ctx, r: RepoEntry, raw: string): Promise<Reply> {
  const p = await pullOf(ctx, r, raw, DOCS.reviews);
  const reviews = ctx.s.pullWorld.of(r).reviews.filter((v) => v.pull === p.number);
  const page = paginate(reviews, pageParams(ctx.query), linker(ctx));
  return json(
    200,
    page.items.map((v) => reviewShape(ctx.s, r, v)),
    page.headers,
  );
}

/** GET /repos/{o}/{r}/pulls/{n}/comments: ascending id. */
export async function listReviewComments(ctx: Ctx, r: RepoEntry, raw: string): Promise<Reply> {
  const p = await pullOf(ctx, r, raw, DOCS.reviewComments);
  const comments = ctx.s.pullWorld.of(r).reviewComments.filter((c) => c.pull === p.number);
  if (ctx.query.get('direction') === 'desc') comments.reverse();
  const page = paginate(comments, pageParams(ctx.query), linker(ctx));
  const files = page.items.length ? await pullChanges(ctx.s.pullWorld, r, p) : [];
  return json(
    200,
    page.items.map((c) => reviewCommentShape(ctx.s, r, c, hunkFor(files, c))),
    page.headers,
  );
}

/** The hunk of the comment's file that holds its line, up to that line (GitHub's `diff_hunk`). */
function hunkFor(files: readonly FileChange[], c: ReviewCommentEntry): string {
  const patch = files.find((f) => f.filename === c.path)?.patch;
  if (!patch) return '@@ -0,0 +0,0 @@';
  const hunks = patch.split(/^(?=@@ )/m);
  for (const h of hunks) {
    const m = /^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@/.exec(h);
    if (!m) continue;
    const start = Number(m[1]);
    const len = m[2] === undefined ? 1 : Number(m[2]);
    const line = c.line ?? start;
    if (line < start || line >= start + Math.max(len, 1)) continue;
    const lines = h.replace(/\n$/, '').split('\n');
    let at = start - 1;
    const out = [lines[0] ?? ''];
    for (const l of lines.slice(1)) {
      out.push(l);
      if (!l.startsWith('-')) at += 1;
      if (at >= line) break;
    }
    return out.join('\n');
  }
  return (hunks[0] ?? '').split('\n')[0] ?? '@@ -0,0 +0,0 @@';
}

/** GET /repos/{o}/{r}/issues/{n}/comments: a PR's conversation (this emulator has no plain issues). */
export async function listIssueComments(ctx: Ctx, r: RepoEntry, raw: string): Promise<Reply> {
  const p = await pullOf(ctx, r, raw, DOCS.issueComments);
  const comments = ctx.s.pullWorld.of(r).issueComments.filter((c) => c.pull === p.number);
  const page = paginate(comments, pageParams(ctx.query), linker(ctx));
  return json(
    200,
    page.items.map((c) => issueCommentShape(ctx.s, r, c)),
    page.headers,
  );
}
