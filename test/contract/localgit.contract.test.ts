// The Upstream contract against the local git adapter over bare repositories.
import { createLocalGitUpstream } from '../../src/upstream/localgit/index.js';
import { makeRepo } from '../support/gitdir.js';
import { runUpstreamContract } from './upstream.contract.js';

runUpstreamContract('localgit (bare)', async (commits) => {
  const git = await makeRepo(commits, { bare: true });
  const upstream = createLocalGitUpstream({ repos: [git.dir] });
  return { upstream, repo: git.dir, git, cleanup: () => git.cleanup() };
});
