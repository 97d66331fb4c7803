// Repositories, branches and ref resolution. Mutable answers (repo metadata, branch lists, ref heads) go through
// conditional requests; commit objects by SHA are immutable and cached.
import type { BranchInfo, RepoInfo } from '../types.js';
import { approxBytes } from './cache.js';
import { charged, conditionalGet, FULL_SHA, hasNextPage, immutable, type Ctx, type RepoRef } from './context.js';
import { failure, isHttpFailure } from './errors.js';

const MAX_PAGES = 50;

/** The repository's default branch. */
export async function defaultBranch(ctx: Ctx, r: RepoRef): Promise<string> {
  return conditionalGet(
    ctx,
    `repo:${r.key}`,
    async (headers) => {
      const res = await ctx.octokit.rest.repos.get({ ...charged(ctx), owner: r.owner, repo: r.repo, headers });
      return { value: res.data.default_branch, headers: res.headers };
    },
    approxBytes,
  ).catch(notFound(`Repository ${r.owner}/${r.repo} not found`));
}

/** Every repository the token can see (`GET /user/repos`, all pages). */
export async function listRepos(ctx: Ctx): Promise<RepoInfo[]> {
  const out: RepoInfo[] = [];
  for (let page = 1; page <= MAX_PAGES; page++) {
    const { items, next } = await conditionalGet(
      ctx,
      `user-repos:${page}`,
      async (headers) => {
        const res = await ctx.octokit.rest.repos.listForAuthenticatedUser({
          ...charged(ctx),
          per_page: 100,
          page,
          headers,
        });
        const items = res.data.map((x) => ({ name: x.full_name, defaultBranch: x.default_branch, private: x.private }));
        return { value: { items, next: hasNextPage(res.headers.link) }, headers: res.headers };
      },
      approxBytes,
    );
    out.push(...items);
    if (!next) break;
  }
  return out;
}

/** Every branch with its head. */
export async function listBranches(ctx: Ctx, r: RepoRef): Promise<BranchInfo[]> {
  const out: BranchInfo[] = [];
  for (let page = 1; page <= MAX_PAGES; page++) {
    const { items, next } = await conditionalGet(
      ctx,
      `branches:${r.key}:${page}`,
      async (headers) => {
        const res = await ctx.octokit.rest.repos.listBranches({
          ...charged(ctx),
          owner: r.owner,
          repo: r.repo,
          per_page: 100,
          page,
          headers,
        });
        const items = res.data.map((b) => ({ name: b.name, sha: b.commit.sha }));
        return { value: { items, next: hasNextPage(res.headers.link) }, headers: res.headers };
      },
      approxBytes,
    ).catch(notFound(`Repository ${r.owner}/${r.repo} not found`));
    out.push(...items);
    if (!next) break;
  }
  return out;
}

/** The key a branch head is cached (and pinned for a call) under. */
export const headKey = (r: RepoRef, branch: string): string => `ref:${r.key}:heads/${branch}`;

/** The commit a branch points at (`GET git/ref/heads/{branch}`, conditional: a 304 means it has not moved). */
export async function branchHead(ctx: Ctx, r: RepoRef, branch: string): Promise<string> {
  if (!branch || branch.startsWith('refs/')) throw failure('not_found', `Branch ${branch} not found`);
  return conditionalGet(
    ctx,
    headKey(r, branch),
    async (headers) => {
      const res = await ctx.octokit.rest.git.getRef({
        ...charged(ctx),
        owner: r.owner,
        repo: r.repo,
        ref: `heads/${branch}`,
        headers,
      });
      return { value: res.data.object.sha, headers: res.headers };
    },
    approxBytes,
  ).catch(notFound(`Branch ${branch} not found`));
}

/** Resolves a ref (full SHA, branch, or tag) to a commit SHA. */
export async function resolveCommit(ctx: Ctx, r: RepoRef, ref: string): Promise<string> {
  if (FULL_SHA.test(ref)) return ref.toLowerCase();
  try {
    return await branchHead(ctx, r, ref);
  } catch (err) {
    if (!isNotFound(err)) throw err;
  }
  return resolveTag(ctx, r, ref).catch(notFound(`Ref ${ref} not found`));
}

async function resolveTag(ctx: Ctx, r: RepoRef, tag: string): Promise<string> {
  let obj = await conditionalGet(
    ctx,
    `ref:${r.key}:tags/${tag}`,
    async (headers) => {
      const res = await ctx.octokit.rest.git.getRef({
        ...charged(ctx),
        owner: r.owner,
        repo: r.repo,
        ref: `tags/${tag}`,
        headers,
      });
      return { value: { type: res.data.object.type, sha: res.data.object.sha }, headers: res.headers };
    },
    approxBytes,
  );
  // Annotated tags point at tag objects; peel (bounded) to the commit.
  for (let i = 0; i < 5 && obj.type === 'tag'; i++) {
    const sha = obj.sha;
    obj = await immutable(
      ctx,
      `tag:${r.key}:${sha}`,
      async () => {
        const res = await ctx.octokit.rest.git.getTag({ ...charged(ctx), owner: r.owner, repo: r.repo, tag_sha: sha });
        return { type: res.data.object.type, sha: res.data.object.sha };
      },
      approxBytes,
    );
  }
  if (obj.type !== 'commit') throw failure('not_found', `Ref ${tag} not found`);
  return obj.sha;
}

/** A commit object as the Git Data API returns it (immutable, cached by SHA). */
export interface GitCommit {
  readonly sha: string;
  readonly tree: string;
  readonly parents: readonly string[];
}

/** The commit's tree and parents (`GET git/commits/{sha}`). */
export function gitCommit(ctx: Ctx, r: RepoRef, sha: string): Promise<GitCommit> {
  return immutable(
    ctx,
    `gcommit:${r.key}:${sha}`,
    async () => {
      const res = await ctx.octokit.rest.git.getCommit({
        ...charged(ctx),
        owner: r.owner,
        repo: r.repo,
        commit_sha: sha,
      });
      return { sha: res.data.sha, tree: res.data.tree.sha, parents: res.data.parents.map((p) => p.sha) };
    },
    approxBytes,
  ).catch((err: unknown) => {
    // An unknown SHA is a 404 or a 422 depending on the endpoint's mood.
    if (isHttpFailure(err) && (err.status === 404 || err.status === 422))
      throw failure('not_found', `Ref ${sha} not found`);
    throw err;
  });
}

/** Resolves a ref to its commit and that commit's root tree. */
export async function resolveTree(ctx: Ctx, r: RepoRef, ref: string): Promise<GitCommit> {
  const sha = await resolveCommit(ctx, r, ref);
  return gitCommit(ctx, r, sha);
}

/** True for a 404 from GitHub or a not_found the adapter decided. */
export function isNotFound(err: unknown): boolean {
  if (isHttpFailure(err)) return err.status === 404;
  return (
    err instanceof Error &&
    err.name === 'UpstreamFailure' &&
    (err as { error?: { code?: string } }).error?.code === 'not_found'
  );
}

/** A catch handler turning a 404 into a not_found with `message`. */
export function notFound(message: string): (err: unknown) => never {
  return (err: unknown): never => {
    if (isHttpFailure(err) && err.status === 404) throw failure('not_found', message);
    throw err;
  };
}
