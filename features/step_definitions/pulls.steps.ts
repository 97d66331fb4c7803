// Pull requests (issue 22): the agent's PR tools, with reviews and CI seeded through the GitHub emulator's `pulls`.
// On a local repository a PR is a merge proposal (SPEC §3.5): the operator finds it by its number and decides it.
import assert from 'node:assert/strict';
import { Given, Then, When } from '@cucumber/cucumber';
import { GITHUB_REPO, STANDARD_PERIMETERS } from '../support/fixture.js';
import type { BlinderWorld } from '../support/world.js';

const list = (s: string) =>
  s
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);

const pulls = (w: BlinderWorld) => {
  assert.ok(w.emulator, 'pull requests need the GitHub assembly');
  return w.emulator.pulls;
};

const prNumber = (w: BlinderWorld): number => {
  const n = w.memo.get('pr');
  assert.equal(typeof n, 'number', 'no pull request opened yet');
  return n as number;
};

Given(
  'the perimeter {string} opens pull requests into {string} from the branches {string}',
  async function (this: BlinderWorld, id: string, base: string, branches: string) {
    const globs = STANDARD_PERIMETERS[id];
    assert.ok(globs, `no standard perimeter "${id}"`);
    await this.createPerimeter({ id, ...globs, branches: list(branches), pulls: { base } });
  },
);

Given(
  'the perimeter {string} reading {string} and writing {string} opens pull requests into {string} from the branches {string}',
  async function (this: BlinderWorld, id: string, read: string, write: string, base: string, branches: string) {
    await this.createPerimeter({ id, read: list(read), write: list(write), branches: list(branches), pulls: { base } });
  },
);

Given(
  'someone opened a pull request from {string} into {string}',
  async function (this: BlinderWorld, head: string, base: string) {
    const n = await pulls(this).open({ repo: GITHUB_REPO, head, base, title: `${head} work` });
    this.memo.set(`pr:${head}`, n);
  },
);

When(
  'agent {word} opens a pull request titled {string}',
  async function (this: BlinderWorld, name: string, title: string) {
    const r = await this.agent(name).call('create_pull_request', { title, body: 'Work of the agent.' });
    this.memo.set(`answer:${name}`, r);
    this.memo.set('pr:opener', name);
    if (!r.isError) this.memo.set('pr', r.structured?.number);
  },
);

Then(
  'the pull request is an open draft into {string} with {int} readable changed file(s)',
  function (this: BlinderWorld, base: string, files: number) {
    const r = this.memo.get(`answer:${String(this.memo.get('pr:opener'))}`) as {
      isError: boolean;
      text: string;
      structured: Record<string, unknown>;
    };
    assert.equal(r.isError, false, r.text);
    assert.equal(r.structured.state, 'open');
    assert.equal(r.structured.draft, true);
    assert.equal(r.structured.base, base);
    assert.equal(r.structured.changed_files, files);
  },
);

Then(
  'agent {word} reads the pull request with {int} changed file(s), {int} addition(s) and nothing omitted',
  async function (this: BlinderWorld, name: string, files: number, additions: number) {
    const r = await this.agent(name).call('get_pull_request', { number: prNumber(this) });
    assert.equal(r.isError, false, r.text);
    assert.equal(r.structured?.changed_files, files, r.text);
    assert.equal(r.structured?.additions, additions, r.text);
    assert.equal(r.structured?.omitted_count, 0, r.text);
  },
);

Then(
  'agent {word} reads the file {string} of the pull request exactly like {string}, which it does not hold',
  async function (this: BlinderWorld, name: string, hidden: string, absent: string) {
    const n = prNumber(this);
    const h = await this.agent(name).call('get_pull_request_files', { number: n, path: hidden });
    const a = await this.agent(name).call('get_pull_request_files', { number: n, path: absent });
    assert.equal(h.isError, a.isError, h.text);
    assert.equal(h.text.split(hidden).join('<path>'), a.text.split(absent).join('<path>'));
  },
);

When('the operator finds the proposal of the pull request', async function (this: BlinderWorld) {
  const n = prNumber(this);
  const listed = await this.api('GET', '/proposals');
  assert.equal(listed.status, 200, listed.text);
  const found: string[] = [];
  for (const { id, status } of (listed.json as { proposals: { id: string; status: string }[] }).proposals) {
    if (status !== 'pending') continue;
    const one = await this.api('GET', `/proposals/${id}`);
    const change = (one.json as { proposal: { change: { kind: string; number?: number } } }).proposal.change;
    if (change.kind === 'pull_request' && change.number === n) found.push(id);
  }
  assert.equal(found.length, 1, `pull request #${n} is not exactly one pending proposal: ${listed.text}`);
  this.memo.set('proposal:last', found[0]);
});

Then(
  'agent {word} reads the pull request as {string}',
  async function (this: BlinderWorld, name: string, state: string) {
    const r = await this.agent(name).call('get_pull_request', { number: prNumber(this) });
    assert.equal(r.isError, false, r.text);
    assert.equal(r.structured?.state, state, r.text);
    if (state === 'merged') assert.ok(r.structured?.merged_at, r.text);
  },
);

When(
  'a reviewer comments {string} on {string} and {string} on {string}',
  async function (this: BlinderWorld, c1: string, p1: string, c2: string, p2: string) {
    await pulls(this).review({
      repo: GITHUB_REPO,
      number: prNumber(this),
      state: 'CHANGES_REQUESTED',
      body: '',
      comments: [
        { path: p1, line: 1, body: c1 },
        { path: p2, line: 1, body: c2 },
      ],
    });
  },
);

When(
  'CI fails the check {string} on {string} annotating {string} and {string}',
  async function (this: BlinderWorld, name: string, branch: string, p1: string, p2: string) {
    await pulls(this).checkRun({
      repo: GITHUB_REPO,
      sha: branch,
      name,
      status: 'completed',
      conclusion: 'failure',
      output: { title: `${name} failed`, summary: 'See the annotations.' },
      annotations: [
        { path: p1, startLine: 1, message: `problem in ${p1}` },
        { path: p2, startLine: 1, message: `problem in ${p2}` },
      ],
    });
  },
);

Then(
  'agent {word} reads the files of the pull request as {string}',
  async function (this: BlinderWorld, name: string, files: string) {
    const r = await this.agent(name).call('get_pull_request_files', { number: prNumber(this) });
    assert.equal(r.isError, false, r.text);
    const paths = (r.structured?.files as { path: string }[]).map((f) => f.path);
    assert.deepEqual(paths, list(files));
  },
);

Then(
  'agent {word} reads the comment {string} and not {string}',
  async function (this: BlinderWorld, name: string, seen: string, unseen: string) {
    const r = await this.agent(name).call('list_pull_request_comments', { number: prNumber(this) });
    assert.equal(r.isError, false, r.text);
    assert.ok(r.text.includes(seen), r.text);
    assert.ok(!JSON.stringify(r.raw).includes(unseen), r.text);
  },
);

Then(
  'agent {word} reads the failing check {string} annotating only {string}',
  async function (this: BlinderWorld, name: string, check: string, path: string) {
    const r = await this.agent(name).call('get_pull_request_status', { number: prNumber(this) });
    assert.equal(r.isError, false, r.text);
    assert.equal(r.structured?.state, 'failure');
    const runs = r.structured?.check_runs as { name: string; conclusion: string; annotations: { path: string }[] }[];
    const run = runs.find((x) => x.name === check);
    assert.ok(run, r.text);
    assert.equal(run.conclusion, 'failure');
    assert.deepEqual(
      run.annotations.map((a) => a.path),
      [path],
    );
  },
);

When('agent {word} pushes a fix to {string}', async function (this: BlinderWorld, name: string, path: string) {
  const r = await this.agent(name).call('push_files', {
    message: 'fix after review',
    files: [{ path, content: '# infra: aws module\n# fixed\n' }],
  });
  assert.equal(r.isError, false, r.text);
});

Then('the pull request counts {int} additions', async function (this: BlinderWorld, additions: number) {
  const r = await this.agent('A').call('get_pull_request', { number: prNumber(this) });
  assert.equal(r.isError, false, r.text);
  assert.equal(r.structured?.additions, additions, r.text);
});

Then('agent {word} is refused with {string}', function (this: BlinderWorld, name: string, words: string) {
  const r = this.memo.get(`answer:${name}`) as { isError: boolean; text: string };
  assert.equal(r.isError, true, r.text);
  assert.ok(r.text.includes(words), r.text);
});

Then(
  'agent {word} reads the pull request from {string} exactly like a made-up number',
  async function (this: BlinderWorld, name: string, head: string) {
    const n = this.memo.get(`pr:${head}`) as number;
    for (const tool of ['get_pull_request', 'get_pull_request_files', 'get_pull_request_status']) {
      const seen = await this.agent(name).call(tool, { number: n });
      const madeUp = await this.agent(name).call(tool, { number: 99999 });
      assert.equal(seen.isError, true, seen.text);
      assert.equal(seen.text.split(`#${n} `).join('#N '), madeUp.text.split('#99999 ').join('#N '));
    }
  },
);

Then('no answer in this scenario mentions {string}', function (this: BlinderWorld, words: string) {
  assert.ok(this.received.length > 0, 'no answer was received');
  for (const w of list(words))
    for (const text of this.received) assert.ok(!text.includes(w), `"${w}" leaked into ${text}`);
});
