import { createGitHubUpstream } from '../upstream/github/index.js';
import { createLocalGitUpstream } from '../upstream/localgit/index.js';
import type { Upstream, UpstreamFor } from '../upstream/types.js';
import { createLocalWorkspace } from '../workspace/localfs/index.js';
import type { Workspace } from '../workspace/types.js';
import type { Log } from '../registry/index.js';
import type { QuotaSighting } from '../state/types.js';
import type { BranchLock } from '../core/index.js';
import { isLocalRepo } from './config.js';

export interface Upstreams {
  readonly all: readonly Upstream[];
  readonly upstreamFor: UpstreamFor;
  readonly local: Upstream;
  readonly github: Upstream | undefined;
  /** Working trees of local repositories; a GitHub repository has none (never a git process for its name). */
  readonly workspace: Workspace;
}

const NONE = { ok: false, error: { code: 'not_found', message: 'not a local repository' } } as const;

/** The local working-tree adapter, answering "not found" for any repository that is not a local path. */
export function localOnlyWorkspace(log: Log): Workspace {
  const ws = createLocalWorkspace({ log });
  return {
    worktrees: (repo) => (isLocalRepo(repo) ? ws.worktrees(repo) : Promise.resolve(NONE)),
    open: (repo, branch) => (isLocalRepo(repo) ? ws.open(repo, branch) : Promise.resolve(NONE)),
    addWorktree: (repo, branch, path) =>
      isLocalRepo(repo) ? ws.addWorktree(repo, branch, path) : Promise.resolve(NONE),
  };
}

/** Composes the adapters: local git always; GitHub when a token is given. */
export function buildUpstreams(o: {
  token: string | undefined;
  githubUrl: string | undefined;
  /** The local repositories to list, asked at each listing (they follow the store). */
  localRepos: () => Iterable<string>;
  log: Log;
  searchDir?: string;
  /** The store's GitHub budget, shared by every instance on one token. */
  quota?: { saw(q: QuotaSighting): void; last(): QuotaSighting | undefined };
  /** The store's branch lock, shared by every instance writing the same local repositories. */
  branchLock?: BranchLock | undefined;
}): Upstreams {
  const local = createLocalGitUpstream({
    repos: o.localRepos,
    log: o.log,
    ...(o.branchLock ? { branchLock: o.branchLock } : {}),
  });
  const github = o.token
    ? createGitHubUpstream({
        token: o.token,
        ...(o.githubUrl ? { baseUrl: o.githubUrl } : {}),
        ...(o.searchDir ? { searchDir: o.searchDir } : {}),
        ...(o.quota ? { sharedQuota: o.quota } : {}),
        log: o.log,
      })
    : undefined;
  const upstreamFor: UpstreamFor = (repo) => (isLocalRepo(repo) ? local : github);
  return { all: github ? [local, github] : [local], upstreamFor, local, github, workspace: localOnlyWorkspace(o.log) };
}
