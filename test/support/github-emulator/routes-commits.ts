// Commit history: list commits, get a commit (with paged files), compare, and the Git Data commit read.
import type { Ctx } from './context.js';
import { countCommits, git, gitRaw, log } from './git.js';
import { commitInfo, objectType, resolveCommit } from './objects.js';
import { EMPTY_TREE, diffFiles, type FileChange } from './diff.js';
import { GitHubError, json, linkHeader, pageParams, paginate, type Reply } from './reply.js';
import { defaultBranch, isEmpty } from './resolve.js';
import { emptyRepo } from './routes-content.js';
import { linker } from './routes-repo.js';
import { commitShape, encPath, gitCommitShape, repoApi, repoHtml } from './shapes.js';
import type { RepoEntry } from './state.js';

const DOCS = {
  list: 'https://docs.github.com/rest/commits/commits#list-commits',
  get: 'https://docs.github.com/rest/commits/commits#get-a-commit',
  compare: 'https://docs.github.com/rest/commits/commits#compare-two-commits',
  gitCommit: 'https://docs.github.com/rest/git/commits#get-a-commit-object',
};

/** Files per page of get-commit, and the most GitHub lists at all. */
const FILES_PER_PAGE = 300;
const FILES_MAX = 3000;

function escapeBre(s: string): string {
  return s.replace(/[.[\]*^$\\]/g, '\\$&');
}

/** GET /repos/{o}/{r}/commits */
export async function listCommits(ctx: Ctx, r: RepoEntry): Promise<Reply> {
  const [empty, defaultRef] = await Promise.all([isEmpty(r.dir), defaultBranch(r.dir)]);
  if (empty) throw emptyRepo(DOCS.list);
  const q = ctx.query;
  const start = q.get('sha') || defaultRef;
  const sha = await resolveCommit(r, start);
  if (!sha) throw new GitHubError(404, `No commit found for SHA: ${start}`, DOCS.list);
  const rawPath = q.get('path');
  const path = rawPath ? rawPath.replace(/^\/+|\/+$/g, '') : '';
  const filters: string[] = [];
  for (const [param, flag] of [
    ['since', '--since'],
    ['until', '--until'],
  ] as const) {
    const v = q.get(param);
    if (v) {
      if (Number.isNaN(Date.parse(v))) throw new GitHubError(400, `Invalid ${param} date`, DOCS.list);
      filters.push(`${flag}=${new Date(v).toISOString()}`);
    }
  }
  for (const who of ['author', 'committer'] as const) {
    const v = q.get(who);
    if (v) filters.push(`--${who}=${escapeBre(v === ctx.s.user.login ? ctx.s.user.email : v)}`);
  }
  const p = pageParams(q);
  const pathArg = path === '' ? undefined : path;
  const [total, commits] = await Promise.all([
    countCommits(r.dir, [...filters, '--end-of-options', sha], pathArg),
    log(
      r.dir,
      [...filters, `--skip=${(p.page - 1) * p.perPage}`, `--max-count=${p.perPage}`, '--end-of-options', sha],
      pathArg,
    ),
  ]);
  const last = Math.max(1, Math.ceil(total / p.perPage));
  const link = linker(ctx)(p.page, last);
  return json(
    200,
    commits.map((c) => commitShape(ctx.s, r, c)),
    link ? { link } : {},
  );
}

/** A diff-entry with the URLs GitHub attaches. */
export function diffEntry(ctx: Ctx, r: RepoEntry, at: string, f: FileChange): Record<string, unknown> {
  const out: Record<string, unknown> = {
    sha: f.sha,
    filename: f.filename,
    status: f.status,
    additions: f.additions,
    deletions: f.deletions,
    changes: f.additions + f.deletions,
    blob_url: repoHtml(ctx.s, r, `blob/${at}/${encPath(f.filename)}`),
    raw_url: repoHtml(ctx.s, r, `raw/${at}/${encPath(f.filename)}`),
    contents_url: `${repoApi(ctx.s, r, `contents/${encPath(f.filename)}`)}?ref=${at}`,
  };
  if (f.patch !== undefined) out.patch = f.patch;
  if (f.previousFilename !== undefined) out.previous_filename = f.previousFilename;
  return out;
}

/** GET /repos/{o}/{r}/commits/{ref} */
export async function getCommit(ctx: Ctx, r: RepoEntry, ref: string): Promise<Reply> {
  const [empty, sha] = await Promise.all([isEmpty(r.dir), resolveCommit(r, ref)]);
  if (empty) throw emptyRepo(DOCS.get);
  if (!sha) throw new GitHubError(422, `No commit found for SHA: ${ref}`, DOCS.get);
  const info = await commitInfo(r, sha);
  const parent = info.parents[0] ?? EMPTY_TREE;
  if (ctx.accept.includes('application/vnd.github.sha') || ctx.accept.includes('application/vnd.github.v3.sha')) {
    return {
      kind: 'raw',
      status: 200,
      body: Buffer.from(sha),
      contentType: 'application/vnd.github.sha; charset=utf-8',
    };
  }
  if (/application\/vnd\.github(\.v3)?\.diff/.test(ctx.accept)) {
    const diff = await git(r.dir, ['diff-tree', '-r', '-M', '-p', '--no-color', '--end-of-options', parent, sha]);
    return {
      kind: 'raw',
      status: 200,
      body: Buffer.from(diff),
      contentType: 'application/vnd.github.diff; charset=utf-8',
    };
  }
  if (/application\/vnd\.github(\.v3)?\.patch/.test(ctx.accept)) {
    const patch = await git(r.dir, ['format-patch', '-1', '--stdout', '--no-color', sha]);
    return {
      kind: 'raw',
      status: 200,
      body: Buffer.from(patch),
      contentType: 'application/vnd.github.patch; charset=utf-8',
    };
  }
  const all = (await diffFiles(r.dir, parent, sha)).slice(0, FILES_MAX);
  const stats = all.reduce((s, f) => ({ additions: s.additions + f.additions, deletions: s.deletions + f.deletions }), {
    additions: 0,
    deletions: 0,
  });
  const page = paginate(all, pageParams(ctx.query, { perPage: FILES_PER_PAGE, max: FILES_PER_PAGE }), linker(ctx));
  return json(
    200,
    {
      ...commitShape(ctx.s, r, info),
      stats: { ...stats, total: stats.additions + stats.deletions },
      files: page.items.map((f) => diffEntry(ctx, r, sha, f)),
    },
    page.headers,
  );
}

/** `owner:branch` names a ref in a fork; only this repository's own owner is known here. */
function stripOwner(r: RepoEntry, name: string): string | null {
  const colon = name.indexOf(':');
  if (colon < 0) return name;
  return name.slice(0, colon).toLowerCase() === r.owner.toLowerCase() ? name.slice(colon + 1) : null;
}

/** GET /repos/{o}/{r}/compare/{base}...{head} */
export async function compare(ctx: Ctx, r: RepoEntry, basehead: string): Promise<Reply> {
  const dots = basehead.indexOf('...');
  if (dots < 0) throw new GitHubError(404, 'Not Found', DOCS.compare);
  if (await isEmpty(r.dir)) throw new GitHubError(404, 'Not Found', DOCS.compare);
  const baseName = stripOwner(r, basehead.slice(0, dots));
  const headName = stripOwner(r, basehead.slice(dots + 3));
  const base = baseName === null ? null : await resolveCommit(r, baseName);
  const head = headName === null ? null : await resolveCommit(r, headName);
  if (!base || !head) throw new GitHubError(404, 'Not Found', DOCS.compare);
  // base and head are full SHAs here, so they cannot be mistaken for options.
  const mbRun = await gitRaw(r.dir, ['merge-base', base, head]);
  const mb = mbRun.code === 0 ? mbRun.stdout.toString('utf8').trim() : '';
  if (!mb) throw new GitHubError(404, `No common ancestor between ${baseName} and ${headName}.`, DOCS.compare);
  const ahead = await countCommits(r.dir, [`${base}..${head}`]);
  const behind = await countCommits(r.dir, [`${head}..${base}`]);
  const status =
    ahead === 0 && behind === 0 ? 'identical' : behind === 0 ? 'ahead' : ahead === 0 ? 'behind' : 'diverged';

  const paged = ctx.query.has('page') || ctx.query.has('per_page');
  let commits = await log(r.dir, ['--reverse', `${base}..${head}`]);
  const headers: Record<string, string> = {};
  let firstPage = true;
  if (paged) {
    const p = pageParams(ctx.query);
    firstPage = p.page === 1;
    const l = linkHeader(ctx.s.url, ctx.rawPath, ctx.query, p.page, Math.max(1, Math.ceil(commits.length / p.perPage)));
    if (l) headers.link = l;
    commits = commits.slice((p.page - 1) * p.perPage, p.page * p.perPage);
  } else {
    commits = commits.slice(-250); // the newest 250, still oldest first
  }
  const files = firstPage ? (await diffFiles(r.dir, mb, head)).slice(0, 300) : [];
  const api = repoApi(ctx.s, r, `compare/${encPath(basehead)}`);
  const html = repoHtml(ctx.s, r, `compare/${encPath(basehead)}`);
  return json(
    200,
    {
      url: api,
      html_url: html,
      permalink_url: repoHtml(ctx.s, r, `compare/${r.owner}:${base.slice(0, 7)}...${r.owner}:${head.slice(0, 7)}`),
      diff_url: `${html}.diff`,
      patch_url: `${html}.patch`,
      base_commit: commitShape(ctx.s, r, await commitInfo(r, base)),
      merge_base_commit: commitShape(ctx.s, r, await commitInfo(r, mb)),
      status,
      ahead_by: ahead,
      behind_by: behind,
      total_commits: ahead,
      commits: commits.map((c) => commitShape(ctx.s, r, c)),
      files: files.map((f) => diffEntry(ctx, r, head, f)),
    },
    headers,
  );
}

/** GET /repos/{o}/{r}/git/commits/{sha} */
export async function getGitCommit(ctx: Ctx, r: RepoEntry, sha: string): Promise<Reply> {
  if (await isEmpty(r.dir)) throw emptyRepo(DOCS.gitCommit);
  const lower = sha.toLowerCase();
  if (!/^[0-9a-f]{40}$/.test(lower) || (await objectType(r, lower)) !== 'commit')
    throw new GitHubError(404, 'Not Found', DOCS.gitCommit);
  return json(200, gitCommitShape(ctx.s, r, await commitInfo(r, lower)));
}
