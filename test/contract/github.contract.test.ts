// The Upstream contract against the GitHub adapter, talking HTTP to the GitHub emulator over bare repositories.
import { afterAll, beforeAll } from 'vitest';
import { createGitHubUpstream } from '../../src/upstream/github/index.js';
import { makeRepo } from '../support/gitdir.js';
import { startGitHubEmulator, type Emulator } from '../support/github-emulator/index.js';
import { runUpstreamContract } from './upstream.contract.js';

const TOKEN = 'ghp_contractTokenContractTokenContract00';
let emulator: Emulator;
let n = 0;

beforeAll(async () => {
  emulator = await startGitHubEmulator({ token: TOKEN });
});
afterAll(async () => {
  await emulator.close();
});

runUpstreamContract('github (emulator)', async (commits) => {
  const git = await makeRepo(commits, { bare: true });
  n += 1;
  const repo = `acme/contract-${n}`;
  emulator.addRepo(repo, git.dir);
  const upstream = createGitHubUpstream({
    token: TOKEN,
    baseUrl: emulator.url,
    writeSpacingMs: 0,
    retryDelayMs: 10,
    maxRateLimitWaitSeconds: 1,
  });
  return {
    upstream,
    repo,
    git,
    cleanup: async () => {
      await upstream.close();
      await git.cleanup();
    },
  };
});
