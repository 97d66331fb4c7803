import { createGitHubUpstream } from '../upstream/github/index.js';
import { createLocalGitUpstream } from '../upstream/localgit/index.js';
import type { Upstream, UpstreamFor } from '../upstream/types.js';
import type { Log } from '../registry/index.js';
import type { QuotaSighting } from '../state/types.js';
import { isLocalRepo } from './config.js';

export interface Upstreams {
  readonly all: readonly Upstream[];
  readonly upstreamFor: UpstreamFor;
  readonly local: Upstream;
  readonly github: Upstream | undefined;
}

/** Composes the adapters: local git always; GitHub when a token is given. */
export function buildUpstreams(o: {
  token: string | undefined;
  githubUrl: string | undefined;
  localRepos: string[];
  log: Log;
  searchDir?: string;
  /** The store's GitHub budget, shared by every instance on one token. */
  quota?: { saw(q: QuotaSighting): void; last(): QuotaSighting | undefined };
}): Upstreams {
  const local = createLocalGitUpstream({ repos: o.localRepos, log: o.log });
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
  return { all: github ? [local, github] : [local], upstreamFor, local, github };
}
