import { createGitHubUpstream } from '../upstream/github/index.js';
import { createLocalGitUpstream } from '../upstream/localgit/index.js';
import type { Upstream, UpstreamFor } from '../upstream/types.js';
import type { Log } from '../registry/index.js';
import { isLocalRepo } from './config.js';

export interface Upstreams {
  readonly all: readonly Upstream[];
  readonly upstreamFor: UpstreamFor;
  readonly local: Upstream;
  readonly github: Upstream | undefined;
}

/** Composes the adapters: local git always; GitHub when a token is given. */
export function buildUpstreams(o: { token: string | undefined; githubUrl: string | undefined; localRepos: string[]; log: Log; searchDir?: string }): Upstreams {
  const local = createLocalGitUpstream({ repos: o.localRepos, log: o.log });
  const github = o.token
    ? createGitHubUpstream({ token: o.token, ...(o.githubUrl ? { baseUrl: o.githubUrl } : {}), ...(o.searchDir ? { searchDir: o.searchDir } : {}), log: o.log })
    : undefined;
  const upstreamFor: UpstreamFor = (repo) => (isLocalRepo(repo) ? local : github);
  return { all: github ? [local, github] : [local], upstreamFor, local, github };
}
