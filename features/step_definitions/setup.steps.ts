// Arranging a scenario: the repository, the server, perimeters and branches.
import assert from 'node:assert/strict';
import { Given, When } from '@cucumber/cucumber';
import { STANDARD_PERIMETERS } from '../support/fixture.js';
import type { BlinderWorld } from '../support/world.js';

const list = (s: string) =>
  s
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);

Given('the platform repository', async function (this: BlinderWorld) {
  await this.buildPlatformRepo();
  this.memo.set('head:main', await this.head('main'));
});

Given('a running git-blinder server', async function (this: BlinderWorld) {
  await this.startServer();
});

Given('a running git-blinder server with open perimeters', async function (this: BlinderWorld) {
  this.serverArgs = ['--open-perimeters'];
  await this.startServer();
});

Given('the perimeter {string} exists', async function (this: BlinderWorld, id: string) {
  const globs = STANDARD_PERIMETERS[id];
  assert.ok(globs, `no standard perimeter "${id}"`);
  await this.createPerimeter({ id, ...globs });
});

Given('the perimeters {string} and {string} exist', async function (this: BlinderWorld, a: string, b: string) {
  for (const id of [a, b]) {
    const globs = STANDARD_PERIMETERS[id];
    assert.ok(globs, `no standard perimeter "${id}"`);
    await this.createPerimeter({ id, ...globs });
  }
});

Given(
  'the perimeter {string} reading {string} with the tools {string}',
  async function (this: BlinderWorld, id: string, read: string, tools: string) {
    await this.createPerimeter({ id, read: list(read), write: [], tools: list(tools) });
  },
);

Given('the branch {string} exists upstream', async function (this: BlinderWorld, branch: string) {
  assert.ok(this.repo);
  await this.repo.git('branch', branch, 'main');
  this.memo.set(`head:${branch}`, await this.head(branch));
});

Given(
  'the branch {string} is created upstream with a commit {string} changing {string}',
  async function (this: BlinderWorld, branch: string, message: string, path: string) {
    assert.ok(this.repo);
    await this.repo.git('branch', branch, 'main');
    await this.repo.commit({ branch, message, files: { [path]: `# ${message}\n` } });
    this.memo.set(`head:${branch}`, await this.head(branch));
  },
);

Given(
  'the branch {string} gets a commit {string} changing {string}',
  async function (this: BlinderWorld, branch: string, message: string, path: string) {
    assert.ok(this.repo);
    await this.repo.commit({ branch, message, files: { [path]: `# ${message}\n` } });
    this.memo.set(`head:${branch}`, await this.head(branch));
  },
);

Given(
  'the operator has allowlisted {string} on {string}',
  async function (this: BlinderWorld, branch: string, id: string) {
    const r = await this.api('POST', `/perimeters/${id}/branches`, { name: branch });
    assert.equal(r.status, 201, r.text);
  },
);

When('the server restarts on the same state directory', async function (this: BlinderWorld) {
  await this.stopServer();
  await this.startServer();
});

When('the operator revokes the agent key of {string}', async function (this: BlinderWorld, id: string) {
  const r = await this.api('GET', `/perimeters/${id}/keys`);
  const keys = (r.json as { keys: { id: string }[] }).keys;
  assert.equal(keys.length, 1, r.text);
  const del = await this.api('DELETE', `/perimeters/${id}/keys/${keys[0]?.id ?? ''}`);
  assert.equal(del.status, 200, del.text);
});
