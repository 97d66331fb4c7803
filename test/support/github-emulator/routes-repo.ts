// Repositories, branches and the rate-limit endpoint.
import type { Ctx } from './context.js';
import { git } from './git.js';
import { GitHubError, json, linkHeader, pageParams, paginate, type Reply } from './reply.js';
import { commitInfo } from './objects.js';
import { plausibleRef } from './refname.js';
import { repoFacts } from './resolve.js';
import { commitShape, encPath, repoApi, repoHtml, repoShape } from './shapes.js';
import type { RepoEntry } from './state.js';

const DOCS = {
  userRepos: 'https://docs.github.com/rest/repos/repos#list-repositories-for-the-authenticated-user',
  repo: 'https://docs.github.com/rest/repos/repos#get-a-repository',
  branches: 'https://docs.github.com/rest/branches/branches#list-branches',
  branch: 'https://docs.github.com/rest/branches/branches#get-a-branch',
};

/** Link builder bound to this request. */
export function linker(ctx: Ctx): (page: number, last: number) => string | undefined {
  return (page, last) => linkHeader(ctx.s.url, ctx.rawPath, ctx.query, page, last);
}

/** GET /user/repos */
export async function listUserRepos(ctx: Ctx): Promise<Reply> {
  const q = ctx.query;
  if (q.has('type') && (q.has('visibility') || q.has('affiliation'))) {
    throw new GitHubError(422, 'Validation Failed', DOCS.userRepos, {
      errors: [
        {
          resource: 'Repository',
          field: 'type',
          code: 'invalid',
          message: 'type cannot be combined with visibility or affiliation',
        },
      ],
    });
  }
  const visible = [...ctx.s.repos.values()].filter((r) => !ctx.s.isDenied(r.fullName, ctx.token));
  if (q.get('visibility') === 'public' || q.get('type') === 'public') visible.length = 0; // every emulated repo is private
  visible.sort((a, b) => a.fullName.toLowerCase().localeCompare(b.fullName.toLowerCase()));
  if (q.get('direction') === 'desc') visible.reverse();
  const page = paginate(visible, pageParams(q), linker(ctx));
  const body = await Promise.all(page.items.map(async (r) => repoShape(ctx.s, r, await repoFacts(r), false)));
  return json(200, body, page.headers);
}

/** GET /repos/{o}/{r} */
export async function getRepo(ctx: Ctx, r: RepoEntry): Promise<Reply> {
  return json(200, repoShape(ctx.s, r, await repoFacts(r), true));
}

async function branchHeads(r: RepoEntry): Promise<{ name: string; sha: string }[]> {
  const out = await git(r.dir, [
    'for-each-ref',
    '--sort=refname',
    '--format=%(refname:strip=2)%00%(objectname)',
    'refs/heads',
  ]);
  return out
    .split('\n')
    .filter(Boolean)
    .map((l) => {
      const [name = '', sha = ''] = l.split('\0');
      return { name, sha };
    });
}

/** GET /repos/{o}/{r}/branches */
export async function listBranches(ctx: Ctx, r: RepoEntry): Promise<Reply> {
  let heads = await branchHeads(r);
  if (ctx.query.get('protected') === 'true') heads = []; // no emulated branch is protected
  const page = paginate(heads, pageParams(ctx.query), linker(ctx));
  const body = page.items.map((h) => ({
    name: h.name,
    commit: { sha: h.sha, url: repoApi(ctx.s, r, `commits/${h.sha}`) },
    protected: false,
  }));
  return json(200, body, page.headers);
}

/** GET /repos/{o}/{r}/branches/{branch} */
export async function getBranch(ctx: Ctx, r: RepoEntry, branch: string): Promise<Reply> {
  // The exact branch, peeled to its commit; git rejects nothing here that GitHub would accept as a branch name.
  const head = plausibleRef(branch) ? await r.batch.info(r.dir, `refs/heads/${branch}^{commit}`) : null;
  if (!head) throw new GitHubError(404, 'Branch not found', DOCS.branch);
  const info = await commitInfo(r, head.sha);
  const self = repoApi(ctx.s, r, `branches/${encPath(branch)}`);
  return json(200, {
    name: branch,
    commit: commitShape(ctx.s, r, info),
    _links: { self, html: repoHtml(ctx.s, r, `tree/${encPath(branch)}`) },
    protected: false,
    protection: { enabled: false, required_status_checks: { enforcement_level: 'off', contexts: [], checks: [] } },
    protection_url: `${self}/protection`,
  });
}

/** GET /rate_limit (does not count against the budget). */
export function getRateLimit(ctx: Ctx, nowEpoch: number): Reply {
  const b = ctx.s.budget(ctx.token, nowEpoch);
  const core = { limit: ctx.s.limit, used: b.used, remaining: Math.max(0, ctx.s.limit - b.used), reset: b.resetEpoch };
  const other = (limit: number): Record<string, number> => ({ limit, used: 0, remaining: limit, reset: nowEpoch + 60 });
  return json(200, {
    resources: {
      core,
      search: other(30),
      graphql: other(5000),
      integration_manifest: other(5000),
      code_search: other(10),
    },
    rate: core,
  });
}
