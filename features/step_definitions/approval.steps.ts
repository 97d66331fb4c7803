// Issue 14: pushes held for approval, decided with the CLI.
import assert from 'node:assert/strict';
import { Given, Then, When } from '@cucumber/cucumber';
import { STANDARD_PERIMETERS } from '../support/fixture.js';
import type { BlinderWorld } from '../support/world.js';

const proposalOf = (w: BlinderWorld, name: string): string => {
  const id = w.memo.get(`proposal:${name}`) as string | undefined;
  assert.ok(id, `agent ${name} made no proposal`);
  return id;
};

Given('the perimeter {string} requires approval for pushes', async function (this: BlinderWorld, id: string) {
  const globs = STANDARD_PERIMETERS[id];
  assert.ok(globs, `no standard perimeter "${id}"`);
  await this.createPerimeter({ id, ...globs, approval: { push_files: 'required' } });
});

Given('the branch {string} head is recorded', async function (this: BlinderWorld, branch: string) {
  this.memo.set(`head:${branch}`, await this.head(branch));
});

Then('agent {word} is told its push waits for approval', function (this: BlinderWorld, name: string) {
  const a = this.lastAnswer;
  assert.ok(a && !a.isError, JSON.stringify(a?.raw));
  assert.equal(a.structured?.status, 'pending');
  assert.match(String(a.structured?.proposal_id), /^p[a-z2-7]{24}$/);
  this.memo.set(`proposal:${name}`, a.structured?.proposal_id);
  this.memo.set('proposal:last', a.structured?.proposal_id);
});

When('the operator runs the CLI on the last proposal: {string}', async function (this: BlinderWorld, command: string) {
  let id = this.memo.get('proposal:last') as string | undefined;
  if (id === undefined) {
    // The push answer was not checked yet: take it from the last answer.
    id = String(this.lastAnswer?.structured?.proposal_id);
    this.memo.set('proposal:last', id);
    for (const [name] of this.agents) this.memo.set(`proposal:${name}`, id);
  }
  const [noun = '', verb = '', ...rest] = command.split(/\s+/);
  await this.cli([noun, verb, id, ...rest]);
});

Then(
  'agent {word} sees its proposal {string} with the commit now at the head of {string}',
  async function (this: BlinderWorld, name: string, status: string, branch: string) {
    const a = await this.agent(name).call('proposal_status', { proposal_id: proposalOf(this, name) });
    assert.equal(a.structured?.status, status, JSON.stringify(a.raw));
    assert.equal(a.structured?.commit, await this.head(branch));
  },
);

Then(
  'agent {word} sees its proposal {string} with the reason {string}',
  async function (this: BlinderWorld, name: string, status: string, reason: string) {
    const a = await this.agent(name).call('proposal_status', { proposal_id: proposalOf(this, name) });
    assert.equal(a.structured?.status, status, JSON.stringify(a.raw));
    assert.equal(a.structured?.reason, reason);
  },
);
