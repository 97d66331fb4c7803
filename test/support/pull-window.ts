// The pull-request window the PR attacks share: a GitHub repository (the emulator over real git) with readable
// infra/ and hidden secret/ files and a feat-aws branch, served to the perimeter `infra`, which reads and writes
// infra/ and opens PRs from feat-aws into main.
import { serveBoth, type Served } from './both-upstreams.js';
import type { CommitSpec } from './gitdir.js';

/** Serves the window; `more` adds commits (other branches, hidden work) after the two it always has. */
export async function servePullWindow(more: CommitSpec[] = []): Promise<Served> {
  const s = await serveBoth('github', [
    { message: 'init', files: { 'infra/main.tf': 'm\n', 'secret/key.txt': 'k\n' } },
    { message: 'aws', branch: 'feat-aws', files: { 'infra/aws.tf': 'aws\n' } },
    ...more,
  ]);
  await s.srv.perimeter({
    id: 'infra',
    repo: s.repo,
    read: ['infra/**'],
    write: ['infra/**'],
    branches: ['feat-aws'],
    pulls: { base: 'main' },
  });
  return s;
}
