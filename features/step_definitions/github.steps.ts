// GitHub-only behaviour: the emulator's faults, concurrent writes through the Git Data API, the token's secrecy.
import assert from 'node:assert/strict';
import { Then, When } from '@cucumber/cucumber';
import type { ToolAnswer } from '../support/agents.js';
import type { BlinderWorld } from '../support/world.js';

function emulator(w: BlinderWorld) {
  assert.ok(w.emulator, 'this step needs the GitHub assembly (tag the scenario @github)');
  return w.emulator;
}

When('GitHub rate-limits the next request for an hour', function (this: BlinderWorld) {
  emulator(this).faults.rateLimit({ kind: 'primary', count: 1, retryAfterSeconds: 3600 });
});

Then(
  'agent {word} is told the upstream is rate limited and when to retry',
  function (this: BlinderWorld, name: string) {
    const a = this.memo.get(`last:${name}`) as ToolAnswer | undefined;
    assert.ok(a?.isError, a && JSON.stringify(a.raw));
    assert.match(a.text, /rate limit/i);
    assert.match(a.text, /retry after \d+ s/i);
    // Not disguised as a missing file: the agent must know to come back later.
    assert.doesNotMatch(a.text, /not found/i);
  },
);

When(
  'agents {word} and {word} push {string} and {string} to the branch at the same time',
  async function (this: BlinderWorld, x: string, y: string, px: string, py: string) {
    const [ax, ay] = await Promise.all([
      this.agent(x).call('push_files', {
        message: `agent ${x} writes ${px}`,
        files: [{ path: px, content: `# by ${x}\n` }],
      }),
      this.agent(y).call('push_files', {
        message: `agent ${y} writes ${py}`,
        files: [{ path: py, content: `# by ${y}\n` }],
      }),
    ]);
    this.memo.set('concurrent', [
      { agent: x, path: px, answer: ax },
      { agent: y, path: py, answer: ay },
    ]);
  },
);

Then('both pushes succeed', function (this: BlinderWorld) {
  const pushes = this.memo.get('concurrent') as { answer: ToolAnswer }[];
  for (const p of pushes) assert.ok(!p.answer.isError, JSON.stringify(p.answer.raw));
  const [c1, c2] = pushes.map((p) => p.answer.structured?.commit);
  assert.notEqual(c1, c2);
});

Then(
  'the branch {string} upstream holds both commits and both files',
  async function (this: BlinderWorld, branch: string) {
    assert.ok(this.repo);
    const pushes = this.memo.get('concurrent') as { agent: string; path: string; answer: ToolAnswer }[];
    const history = await this.repo.git('log', '--format=%H %s', branch);
    for (const p of pushes) {
      assert.ok(
        history.includes(String(p.answer.structured?.commit)),
        `commit of agent ${p.agent} is not on ${branch}:\n${history}`,
      );
      assert.equal(await this.repo.git('show', `${branch}:${p.path}`), `# by ${p.agent}\n`);
    }
    // Nothing else was lost either: the fixture's files are all still there.
    const files = (await this.repo.git('ls-tree', '-r', '--name-only', branch)).trim().split('\n');
    for (const f of [
      'README.md',
      'infra/aws/main.tf',
      'infra/gcp/main.tf',
      'apps/landing/index.html',
      'secrets/prod.env',
    ])
      assert.ok(files.includes(f), f);
  },
);

When(
  'agent {word} makes calls that succeed, fail, are refused and hit a rate limit',
  async function (this: BlinderWorld, name: string) {
    const a = this.agent(name);
    await a.call('get_tree', { recursive: true });
    await a.call('get_file', { path: 'infra/aws/main.tf' });
    await a.call('get_file', { path: 'secrets/prod.env' });
    await a.call('get_file', { path: '../etc/passwd' });
    await a.call('get_commit', { sha: '0123456789abcdef0123456789abcdef01234567' });
    await a.call('push_files', { message: 'refused', files: [{ path: 'apps/landing/x.html', content: 'x' }] });
    await a.call('list_commits', {});
    emulator(this).faults.rateLimit({ kind: 'primary', count: 1, retryAfterSeconds: 3600 });
    await a.call('get_file', { path: 'infra/gcp/main.tf' });
    emulator(this).faults.rateLimit({ kind: 'secondary', count: 1, retryAfterSeconds: 3600, status: 429 });
    await a.call('list_commits', { path: 'infra/gcp' });
    const r = await a.call('push_files', {
      message: 'leak check write',
      files: [{ path: 'infra/aws/leak.tf', content: '# ok\n' }],
    });
    assert.ok(!r.isError, r.text);
  },
);

When('the operator makes API and CLI requests that succeed and fail', async function (this: BlinderWorld) {
  await this.api('GET', '/health');
  await this.api('GET', '/perimeters');
  await this.api('GET', '/repos');
  await this.api('POST', '/perimeters', { id: 'ghost', repo: 'acme/ghost', read: ['**'] });
  await this.api('POST', '/perimeters/infra/branches', { name: 'no-such-branch' });
  await this.api('GET', '/perimeters/infra/commits');
  await this.api('GET', '/perimeters', undefined, 'wrong-token');
  await this.http('GET', '/mcp');
  await this.http('GET', '/mcp/infra');
  await this.cli(['status']);
  await this.cli(['perimeter', 'create', 'ghost', '--repo', 'acme/ghost', '--read', '**']);
  assert.notEqual(this.lastCli?.code, 0, 'creating a perimeter on a missing repository should fail');
});

Then('the GitHub token appears in no answer, no CLI output and no server log line', function (this: BlinderWorld) {
  assert.ok(this.received.length > 10, 'the scenario should have collected answers');
  for (const text of this.received)
    assert.ok(!text.includes(this.githubToken), `token leaked in an answer: ${text.slice(0, 500)}`);
  const logs = this.serverOutput();
  assert.ok(logs.length > 0);
  assert.ok(!logs.includes(this.githubToken), 'token leaked in the server output');
});
