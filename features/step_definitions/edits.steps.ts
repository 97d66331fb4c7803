// Edits (issue 23 §3): an agent reads a file, another writer may change it, the agent's edit lands or refuses.
import assert from 'node:assert/strict';
import { Then, When } from '@cucumber/cucumber';
import type { BlinderWorld } from '../support/world.js';

When('agent {word} reads {string}', async function (this: BlinderWorld, name: string, path: string) {
  const a = await this.agent(name).call('get_file', { path });
  assert.ok(!a.isError, a.text);
  this.memo.set(`read:${name}:${path}`, a.structured?.sha);
});

const edit = async (w: BlinderWorld, name: string, path: string, from: string, to: string, withBlob: boolean) => {
  const sha = w.memo.get(`read:${name}:${path}`);
  if (withBlob) assert.ok(typeof sha === 'string', `agent ${name} has not read ${path}`);
  w.lastAnswer = await w.agent(name).call('edit_file', {
    path,
    edits: [{ old_text: from, new_text: to }],
    ...(withBlob ? { expected_blob_sha: sha } : {}),
  });
};

When(
  'agent {word} edits {string} replacing {string} with {string}',
  async function (this: BlinderWorld, name: string, path: string, from: string, to: string) {
    await edit(this, name, path, from, to, false);
  },
);

When(
  'agent {word} edits {string} replacing {string} with {string}, naming the blob it read',
  async function (this: BlinderWorld, name: string, path: string, from: string, to: string) {
    await edit(this, name, path, from, to, true);
  },
);

When(
  'someone else replaces {string} with {string} in {string} upstream',
  async function (this: BlinderWorld, from: string, to: string, path: string) {
    assert.ok(this.repo);
    const now = await this.repo.git('show', `refs/heads/main:${path}`);
    assert.ok(now.includes(from), `${path} does not hold ${from}`);
    await this.repo.commit({ branch: 'main', message: 'another writer', files: { [path]: now.replace(from, to) } });
  },
);

Then(
  'the edit lands on {string} and {string} upstream is the blob the answer names',
  async function (this: BlinderWorld, branch: string, path: string) {
    const a = this.lastAnswer;
    assert.ok(a && !a.isError, a?.text);
    assert.ok(this.repo);
    assert.equal(a.structured?.commit, await this.head(branch));
    const blob = (await this.repo.git('rev-parse', `refs/heads/${branch}:${path}`)).trim();
    assert.deepEqual(a.structured?.files, [
      { path, blob_sha: blob, size: Buffer.byteLength(await this.repo.git('show', `refs/heads/${branch}:${path}`)) },
    ]);
  },
);

Then('the edit is refused saying {string} and that nothing was written', function (this: BlinderWorld, words: string) {
  const a = this.lastAnswer;
  assert.ok(a?.isError, a?.text);
  assert.ok(a.text.includes(words), a.text);
  assert.match(a.text, /nothing was written/);
});
