// Maps a raw request path to a route. Path parameters that may hold `/` take the rest of the path and are accepted
// raw or %2F-encoded, as Octokit encodes them and curl/gh/go-github do not.
import type { Ctx } from './context.js';
import type { Reply } from './reply.js';
import * as checks from './routes-checks.js';
import * as content from './routes-content.js';
import * as commits from './routes-commits.js';
import * as pulls from './routes-pulls.js';
import * as refs from './routes-refs.js';
import * as repo from './routes-repo.js';
import * as write from './routes-write.js';
import type { RepoEntry } from './state.js';

/** A matched route: its OpenAPI path template and how to answer it. */
export interface Route {
  template: string;
  /** Repository path parameters, when the route is under /repos/{owner}/{repo}. */
  repo?: { owner: string; name: string };
  run: (ctx: Ctx, r: RepoEntry | null) => Promise<Reply>;
}

const R = '/repos/{owner}/{repo}';

function need(r: RepoEntry | null): RepoEntry {
  if (!r) throw new Error('route needs a repository');
  return r;
}

/** Finds the route for `method` + raw path, or null (GitHub answers 404). */
export function match(method: string, rawPath: string): Route | null {
  if (rawPath.length > 1 && rawPath.endsWith('/')) return null; // GitHub: a trailing slash is a 404
  let segs: string[];
  try {
    segs = rawPath.split('/').slice(1).map(decodeURIComponent);
  } catch {
    return null;
  }
  const rest = (from: number): string => segs.slice(from).join('/');
  const is = (m: string): boolean => method === m;

  if (rawPath === '/user/repos' && is('GET')) return { template: '/user/repos', run: (ctx) => repo.listUserRepos(ctx) };
  if (rawPath === '/rate_limit' && is('GET'))
    return {
      template: '/rate_limit',
      run: (ctx) => Promise.resolve(repo.getRateLimit(ctx, Math.floor(Date.now() / 1000))),
    };
  if (segs[0] !== 'repos' || !segs[1] || !segs[2]) return null;

  const at = { owner: segs[1], name: segs[2] };
  const route = (template: string, run: (ctx: Ctx, r: RepoEntry) => Promise<Reply>): Route => ({
    template: `${R}${template}`,
    repo: at,
    run: (ctx, r) => run(ctx, need(r)),
  });
  const [s3, s4] = [segs[3], segs[4]];
  const n = segs.length;

  if (n === 3 && is('GET')) return route('', repo.getRepo);
  switch (s3 ?? '') {
    case 'branches':
      if (!is('GET')) return null;
      return n === 4
        ? route('/branches', repo.listBranches)
        : route('/branches/{branch}', (c, r) => repo.getBranch(c, r, rest(4)));
    case 'contents':
      return is('GET') ? route('/contents/{path}', (c, r) => content.getContents(c, r, rest(4))) : null;
    case 'commits': {
      if (!is('GET')) return null;
      if (n === 4) return route('/commits', commits.listCommits);
      // CI reads of a ref: the last segment names them (a ref holding `/` arrives %2F-encoded from Octokit).
      const ref = segs.slice(4, -1).join('/');
      if (n >= 6 && segs[n - 1] === 'check-runs')
        return route('/commits/{ref}/check-runs', (c, r) => checks.listCheckRuns(c, r, ref));
      if (n >= 6 && segs[n - 1] === 'status')
        return route('/commits/{ref}/status', (c, r) => checks.combinedStatus(c, r, ref));
      if (n >= 6 && segs[n - 1] === 'statuses')
        return route('/commits/{ref}/statuses', (c, r) => checks.listStatuses(c, r, ref));
      return route('/commits/{ref}', (c, r) => commits.getCommit(c, r, rest(4)));
    }
    case 'pulls':
      return pullRoute(method, segs, route);
    case 'issues':
      return is('GET') && n === 6 && segs[5] === 'comments'
        ? route('/issues/{issue_number}/comments', (c, r) => pulls.listIssueComments(c, r, s4 ?? ''))
        : null;
    case 'check-runs':
      return is('GET') && n === 6 && segs[5] === 'annotations'
        ? route('/check-runs/{check_run_id}/annotations', (c, r) => checks.listAnnotations(c, r, s4 ?? ''))
        : null;
    case 'compare':
      return is('GET') && n > 4 ? route('/compare/{basehead}', (c, r) => commits.compare(c, r, rest(4))) : null;
    case 'git':
      break;
    default:
      return null;
  }
  const param = rest(5);
  switch (s4 ?? '') {
    case 'ref':
      return is('GET') && n > 5 ? route('/git/ref/{ref}', (c, r) => refs.getRef(c, r, param, false)) : null;
    case 'matching-refs':
      return is('GET') && n > 5 ? route('/git/matching-refs/{ref}', (c, r) => refs.matchingRefs(c, r, param)) : null;
    case 'refs':
      if (n === 5) return is('POST') ? route('/git/refs', refs.createRef) : null;
      if (is('PATCH')) return route('/git/refs/{ref}', (c, r) => refs.updateRef(c, r, param));
      if (is('DELETE')) return route('/git/refs/{ref}', (c, r) => refs.deleteRef(c, r, param));
      if (is('GET')) return route('/git/refs/{ref}', (c, r) => refs.getRef(c, r, param, true));
      return null;
    case 'trees':
      if (n === 5) return is('POST') ? route('/git/trees', write.createTree) : null;
      return is('GET') ? route('/git/trees/{tree_sha}', (c, r) => content.getTree(c, r, param)) : null;
    case 'blobs':
      if (n === 5) return is('POST') ? route('/git/blobs', write.createBlob) : null;
      return is('GET') && n === 6 ? route('/git/blobs/{file_sha}', (c, r) => content.getBlob(c, r, param)) : null;
    case 'commits':
      if (n === 5) return is('POST') ? route('/git/commits', write.createCommit) : null;
      return is('GET') && n === 6
        ? route('/git/commits/{commit_sha}', (c, r) => commits.getGitCommit(c, r, param))
        : null;
    default:
      return null;
  }
}

/** Routes under /repos/{o}/{r}/pulls. */
function pullRoute(
  method: string,
  segs: readonly string[],
  route: (template: string, run: (ctx: Ctx, r: RepoEntry) => Promise<Reply>) => Route,
): Route | null {
  const n = segs.length;
  const num = segs[4] ?? '';
  if (n === 4) {
    if (method === 'GET') return route('/pulls', pulls.listPulls);
    return method === 'POST' ? route('/pulls', pulls.createPull) : null;
  }
  if (method !== 'GET') return null;
  if (n === 5) return route('/pulls/{pull_number}', (c, r) => pulls.getPull(c, r, num));
  if (n !== 6) return null;
  switch (segs[5] ?? '') {
    case 'files':
      return route('/pulls/{pull_number}/files', (c, r) => pulls.listPullFiles(c, r, num));
    case 'commits':
      return route('/pulls/{pull_number}/commits', (c, r) => pulls.listPullCommits(c, r, num));
    case 'reviews':
      return route('/pulls/{pull_number}/reviews', (c, r) => pulls.listReviews(c, r, num));
    case 'comments':
      return route('/pulls/{pull_number}/comments', (c, r) => pulls.listReviewComments(c, r, num));
    default:
      return null;
  }
}
