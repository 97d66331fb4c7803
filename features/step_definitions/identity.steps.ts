// Issue 23: agents named by their keys (several agents, one perimeter).
import assert from 'node:assert/strict';
import { Then, When } from '@cucumber/cucumber';
import type { BlinderWorld } from '../support/world.js';

When(
  'the operator issues a key for agent {string} on {string}',
  async function (this: BlinderWorld, agent: string, id: string) {
    const k = await this.api('POST', `/perimeters/${id}/keys`, { agent });
    assert.equal(k.status, 201, k.text);
    assert.equal((k.json as { agent: string }).agent, agent);
    this.memo.set(`agent-key:${agent}`, (k.json as { key: string }).key);
  },
);

When(
  'agent {word} connects to {string} with the key of agent {string}',
  async function (this: BlinderWorld, name: string, path: string, agent: string) {
    const key = this.memo.get(`agent-key:${agent}`);
    assert.ok(typeof key === 'string', `no key issued for agent ${agent}`);
    await this.connect(name, path, 'legacy', key);
    this.memo.set('current', name);
  },
);

When('the operator revokes agent {string} on {string}', async function (this: BlinderWorld, agent: string, id: string) {
  const r = await this.api('DELETE', `/perimeters/${id}/keys/${agent}`);
  assert.equal(r.status, 200, r.text);
});

Then(
  'the head of {string} upstream is authored by {string} with the trailer {string}',
  async function (this: BlinderWorld, branch: string, author: string, trailer: string) {
    assert.ok(this.repo);
    assert.equal((await this.repo.git('log', '-1', '--format=%an', branch)).trim(), author);
    const body = await this.repo.git('log', '-1', '--format=%B', branch);
    assert.ok(body.trimEnd().endsWith(trailer), body);
  },
);
