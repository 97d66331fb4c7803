// What people and CI do around pull requests, seeded the same way on both twins (GitHub only): the bound feature
// branch's PR with a review comment on a readable path, a review made only of a comment on a hidden path and a reply
// in its thread, a conversation comment, a failing check run annotating a readable and a hidden path, and a commit
// status; then the hidden branch's PR (another branch's). Numbers are given in that order on both twins; a PR the
// host refuses to open (no change in one twin) is skipped there, and reads as missing in both.
import type { PullController } from '../support/github-emulator/index.js';
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
