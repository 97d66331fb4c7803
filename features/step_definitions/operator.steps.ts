// The operator: CLI commands run as real processes, and the /api they talk to.
import assert from 'node:assert/strict';
import { Then, When } from '@cucumber/cucumber';
import type { BlinderWorld } from '../support/world.js';

const list = (s: string) =>
  s
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);

function expand(w: BlinderWorld, s: string): string {
  return s.split('<repo>').join(w.repoRef).split('<url>').join(w.url);
}

function cliShown(w: BlinderWorld): string {
  const r = w.lastCli;
  assert.ok(r, 'no CLI command ran');
  return `exit ${r.code}\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}`;
}

interface PerimeterView {
  id: string;
  read: string[];
  write: string[];
  branches: string[];
  default_branch: string;
  urls: string[];
}

// ---- CLI --------------------------------------------------------------------------------------------------------

When('the operator runs {string}', async function (this: BlinderWorld, command: string) {
  // Arguments never contain spaces here, so a split is the whole shell we need (no globbing: `infra/**` stays literal).
  await this.cli(expand(this, command).split(/\s+/).filter(Boolean));
});

When(
  'the operator shows the commit {string} of {string} with the CLI',
  async function (this: BlinderWorld, message: string, id: string) {
    await this.cli(['perimeter', 'commits', 'show', id, await this.shaOf(message)]);
  },
);

Then('the command succeeds', function (this: BlinderWorld) {
  assert.equal(this.lastCli?.code, 0, cliShown(this));
});

Then('the command succeeds and prints {string}', function (this: BlinderWorld, text: string) {
  assert.equal(this.lastCli?.code, 0, cliShown(this));
  assert.ok(this.lastCli.stdout.includes(expand(this, text)), `expected "${expand(this, text)}" in\n${cliShown(this)}`);
});

Then('the command succeeds and prints an agent key for {string}', function (this: BlinderWorld, id: string) {
  assert.equal(this.lastCli?.code, 0, cliShown(this));
  // The key is the line after "agent key <id> for <perimeter> (shown once, store it now):".
  const lines = this.lastCli.stdout.split('\n');
  const at = lines.findIndex((l) => l.startsWith('agent key ') && l.includes(` for ${id} `));
  const key = lines[at + 1]?.trim();
  assert.ok(at >= 0 && key, cliShown(this));
  this.keys.set(id, key);
});

Then('the output also prints {string}', function (this: BlinderWorld, text: string) {
  assert.ok(
    this.lastCli?.stdout.includes(expand(this, text)),
    `expected "${expand(this, text)}" in\n${cliShown(this)}`,
  );
});

Then('the command fails with a message mentioning {string}', function (this: BlinderWorld, text: string) {
  const r = this.lastCli;
  assert.ok(r);
  assert.notEqual(r.code, 0, cliShown(this));
  assert.ok(r.stderr.toLowerCase().includes(text.toLowerCase()), `expected "${text}" on stderr:\n${cliShown(this)}`);
  // One clear line, not a stack trace.
  assert.doesNotMatch(r.stderr, /\n\s+at /, 'the CLI printed a stack trace');
});

Then('the output lists the commits {string}', function (this: BlinderWorld, messages: string) {
  const out = this.lastCli?.stdout ?? '';
  for (const m of list(messages)) assert.ok(out.includes(m), `expected commit "${m}" in\n${cliShown(this)}`);
});

Then('the output lists none of the commits {string}', function (this: BlinderWorld, messages: string) {
  const out = this.lastCli?.stdout ?? '';
  for (const m of list(messages))
    assert.ok(!out.includes(m), `commit "${m}" should be invisible in\n${cliShown(this)}`);
});

// ---- API --------------------------------------------------------------------------------------------------------

When('someone lists the perimeters through the API without a token', async function (this: BlinderWorld) {
  await this.api('GET', '/perimeters', undefined, null);
});

When(
  'someone lists the perimeters through the API with the token {string}',
  async function (this: BlinderWorld, token: string) {
    await this.api('GET', '/perimeters', undefined, token);
  },
);

When('the operator lists the perimeters through the API with the ops token', async function (this: BlinderWorld) {
  await this.api('GET', '/perimeters');
});

When(
  'the operator creates through the API the perimeter {string} reading {string} and writing {string}',
  async function (this: BlinderWorld, id: string, read: string, write: string) {
    await this.api('POST', '/perimeters', { id, repo: this.repoRef, read: list(read), write: list(write) });
  },
);

When('the operator deletes the perimeter {string} through the API', async function (this: BlinderWorld, id: string) {
  await this.api('DELETE', `/perimeters/${id}`);
});

Then('the API answers {int}', function (this: BlinderWorld, status: number) {
  assert.equal(this.lastHttp?.status, status, this.lastHttp?.text);
});

Then(
  'the API answers {int} with a message mentioning {string}',
  function (this: BlinderWorld, status: number, text: string) {
    assert.equal(this.lastHttp?.status, status, this.lastHttp?.text);
    const message = (this.lastHttp.json as { error?: { message?: string } }).error?.message ?? '';
    assert.ok(message.toLowerCase().includes(text.toLowerCase()), `expected "${text}" in ${this.lastHttp.text}`);
  },
);

async function perimeter(w: BlinderWorld, id: string): Promise<PerimeterView> {
  const r = await w.api('GET', `/perimeters/${id}`);
  assert.equal(r.status, 200, r.text);
  return (r.json as { perimeter: PerimeterView }).perimeter;
}

Then(
  'the perimeter {string} allowlists exactly the branches {string}, its default branch',
  async function (this: BlinderWorld, id: string, branches: string) {
    const p = await perimeter(this, id);
    assert.deepEqual(p.branches, list(branches));
    assert.equal(p.default_branch, list(branches)[0]);
  },
);

Then(
  'the server lists the agent URL {string} for {string}',
  async function (this: BlinderWorld, path: string, id: string) {
    const p = await perimeter(this, id);
    assert.ok(p.urls.includes(this.url + path), `urls: ${p.urls.join(', ')}`);
  },
);

Then('the server has no perimeter {string}', async function (this: BlinderWorld, id: string) {
  const r = await this.api('GET', '/perimeters');
  assert.equal(r.status, 200);
  const ids = (r.json as { perimeters: PerimeterView[] }).perimeters.map((p) => p.id);
  assert.ok(!ids.includes(id), `perimeters: ${ids.join(', ')}`);
  assert.equal((await this.api('GET', `/perimeters/${id}`)).status, 404);
});

Then(
  'the perimeters {string} and {string} share no read or write glob',
  async function (this: BlinderWorld, a: string, b: string) {
    const [pa, pb] = [await perimeter(this, a), await perimeter(this, b)];
    const globsA = new Set([...pa.read, ...pa.write]);
    assert.ok(pa.read.length > 0 && pb.read.length > 0);
    for (const g of [...pb.read, ...pb.write]) assert.ok(!globsA.has(g), `"${g}" is in both perimeters`);
    // And their readable worlds really are disjoint: no readable prefix of one lies inside the other's.
    const roots = (p: PerimeterView) => p.read.map((g) => g.replace(/\/\*\*$/, ''));
    for (const x of roots(pa))
      for (const y of roots(pb)) assert.ok(!x.startsWith(y) && !y.startsWith(x), `${x} and ${y} overlap`);
  },
);
