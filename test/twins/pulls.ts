// What people and CI do around pull requests, seeded the same way on both twins (GitHub only): the bound feature
// branch's PR with a review comment on a readable path, a review made only of a comment on a hidden path and a reply
// in its thread, a conversation comment, a failing check run annotating a readable and a hidden path, and a commit
// status; then the hidden branch's PR (another branch's). Numbers are given in that order on both twins; a PR the
// host refuses to open (no change in one twin) is skipped there, and reads as missing in both.
import type { ProposalService } from '../../src/registry/proposals.js';
import type { PullController } from '../support/github-emulator/index.js';
import { gitIn } from '../support/gitdir.js';
import { HIDDEN_BRANCH } from './generate.js';

/** Seeds the PRs of one twin's repository `repo`; `visible` is a readable path to anchor comments to. */
export async function seedPulls(pulls: PullController, repo: string, feature: boolean, visible: string): Promise<void> {
  const open = (head: string) =>
    pulls
      .open({ repo, head, base: 'main', title: `${head} work`, body: 'Seeded by the twin check.' })
      .catch(() => undefined);
  const n = feature ? await open('feature') : undefined;
  if (n !== undefined) {
    await pulls.review({
      repo,
      number: n,
      state: 'CHANGES_REQUESTED',
      body: 'Please look again.',
      comments: [{ path: visible, line: 1, body: 'a readable note' }],
    });
    const hidden = await pulls.review({
      repo,
      number: n,
      state: 'COMMENTED',
      body: '',
      comments: [{ path: 'secret/key.txt', line: 1, body: 'a hidden note' }],
    });
    const first = hidden.comments[0];
    if (first !== undefined)
      await pulls.reviewComment({ repo, number: n, path: visible, body: 'reply in a hidden thread', inReplyTo: first });
    pulls.comment({ repo, number: n, body: 'A conversation comment.' });
    await pulls.checkRun({
      repo,
      sha: 'feature',
      name: 'ci',
      status: 'completed',
      conclusion: 'failure',
      output: { title: 'Failed', summary: 'One error.' },
      annotations: [
        { path: visible, startLine: 1, message: 'readable annotation' },
        { path: 'secret/key.txt', startLine: 1, message: 'hidden annotation' },
      ],
    });
    await pulls.status({ repo, sha: 'feature', context: 'lint', state: 'success', description: 'ok' });
  }
  await open(HIDDEN_BRANCH);
}

/**
 * The local twin's PRs (issue 22, local perimeters): proposals the PR tools read, stored straight through the service
 * like the emulator's seeds (no checks a person would make): the feature branch's open PR (#1), then the hidden
 * branch's (#2, another branch's). Local PRs have no reviews, comments or CI. A branch missing in a twin is skipped.
 */
export async function seedLocalPulls(
  proposals: ProposalService,
  perimeter: string,
  repo: string,
  feature: boolean,
): Promise<void> {
  const headOf = async (branch: string) =>
    (await gitIn(repo, ['rev-parse', '--verify', '-q', `refs/heads/${branch}`]).catch(() => '')).trim();
  const base = await headOf('main');
  let number = 0;
  for (const head of feature ? ['feature', HIDDEN_BRANCH] : [HIDDEN_BRANCH]) {
    const sha = await headOf(head);
    number++;
    if (sha === '') continue;
    await proposals.create({
      perimeter,
      repo,
      branch: head,
      base,
      agent: 'twin check',
      change: {
        kind: 'pull_request',
        number,
        into: 'main',
        head: sha,
        title: `${head} work`,
        body: 'Seeded by the twin check.',
        draft: true,
        files: [],
        deletes: [],
      },
      facts: { paths: [], protected_paths: [] },
    });
  }
}
