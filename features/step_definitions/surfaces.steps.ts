// The HTTP surfaces as a stray or probing client meets them: /mcp, unknown URLs, sessions replayed elsewhere.
import assert from 'node:assert/strict';
import { Then, When } from '@cucumber/cucumber';
import type { BlinderWorld, HttpAnswer } from '../support/world.js';

const list = (s: string) =>
  s
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);

const ACCEPT = { accept: 'application/json, text/event-stream' };
const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'probe', version: '1.0.0' } },
};

/** An initialize request carrying the path's credential (the agent key of its perimeter, the ops token for root). */
const initialize = (w: BlinderWorld, path: string, bearer?: string | null) =>
  w.mcp('POST', path, { headers: ACCEPT, body: INITIALIZE, bearer });
const status = (w: BlinderWorld, path: string, bearer?: string | null) => w.mcp('GET', path, { bearer });
const describe = (a: HttpAnswer) => `${a.status} ${a.text}`;

When('a client sends an MCP initialize request to {string}', async function (this: BlinderWorld, path: string) {
  await initialize(this, path);
});

Then('the HTTP answer is {int} and mentions {string}', function (this: BlinderWorld, status: number, text: string) {
  const a = this.lastHttp;
  assert.ok(a);
  assert.equal(a.status, status, describe(a));
  assert.ok(a.text.includes(text), describe(a));
});

Then(
  'the status page {string} offers no tools, and names the perimeters {string} to the operator only',
  async function (this: BlinderWorld, path: string, ids: string) {
    const anyone = await this.http('GET', path);
    const operator = await this.http('GET', path, { headers: { authorization: `Bearer ${this.opsToken}` } });
    for (const a of [anyone, operator]) {
      assert.equal(a.status, 200, describe(a));
      assert.equal((a.json as { tools?: unknown }).tools, undefined, describe(a));
      for (const t of ['get_file', 'push_files', 'list_branches']) assert.ok(!a.text.includes(t), describe(a));
    }
    assert.equal(
      (anyone.json as { perimeters?: string[] }).perimeters,
      undefined,
      `ids shown without the ops token: ${describe(anyone)}`,
    );
    assert.deepEqual([...((operator.json as { perimeters?: string[] }).perimeters ?? [])].sort(), list(ids).sort());
  },
);

// Probes carry the perimeter's own key when it has one: a 404 then comes from the binding, not from a missing key.
Then('the agent URL {string} answers {int}', async function (this: BlinderWorld, path: string, code: number) {
  const post = await initialize(this, path);
  assert.equal(post.status, code, `POST ${path}: ${describe(post)}`);
  const get = await status(this, path);
  assert.equal(get.status, code, `GET ${path}: ${describe(get)}`);
});

Then(
  'the agent URL {string} answers exactly like the unknown perimeter {string}',
  async function (this: BlinderWorld, path: string, unknown: string) {
    for (const ask of [(p: string) => initialize(this, p), (p: string) => status(this, p)]) {
      const [a, b] = [await ask(path), await ask(unknown)];
      assert.equal(a.status, b.status);
      assert.equal(a.text, b.text);
      assert.equal(a.headers.get('content-type'), b.headers.get('content-type'));
    }
  },
);

Then(
  'the agent URL {string} binds to the branch {string}',
  async function (this: BlinderWorld, path: string, branch: string) {
    const a = await status(this, path);
    assert.equal(a.status, 200, describe(a));
    assert.equal((a.json as { branch?: string }).branch, branch, describe(a));
    const init = await initialize(this, path);
    assert.equal(init.status, 200, describe(init));
  },
);

/**
 * Replays agent `name`'s session id on `path` with a tools/list request, carrying `path`'s own valid credential:
 * a refusal then comes from the session's binding to its URL, not from a wrong key.
 */
async function replay(w: BlinderWorld, name: string, path: string): Promise<HttpAnswer> {
  const t = w.agent(name).transport;
  assert.ok(t?.sessionId, `agent ${name} has no session id (2025 era only)`);
  return w.mcp('POST', path, {
    headers: { ...ACCEPT, 'mcp-session-id': t.sessionId, 'mcp-protocol-version': t.protocolVersion ?? '2025-06-18' },
    body: { jsonrpc: '2.0', id: 99, method: 'tools/list', params: {} },
  });
}

Then("agent {word}'s session is accepted on {string}", async function (this: BlinderWorld, name: string, path: string) {
  const a = await replay(this, name, path);
  assert.equal(a.status, 200, describe(a));
  assert.ok(a.text.includes('get_file'), describe(a));
});

Then(
  "agent {word}'s session is refused with 404 on {string}",
  async function (this: BlinderWorld, name: string, path: string) {
    const a = await replay(this, name, path);
    assert.equal(a.status, 404, describe(a));
    assert.ok(!a.text.includes('get_file'), describe(a));
  },
);

Then(
  'the agent URL {string} answers {int} without the ops token',
  async function (this: BlinderWorld, path: string, code: number) {
    for (const a of [await initialize(this, path, null), await status(this, path, null)])
      assert.equal(a.status, code, describe(a));
  },
);

Then(
  'the agent URL {string} answers exactly like the unknown perimeter {string} without a key, with a wrong key and with the key of {string}',
  async function (this: BlinderWorld, path: string, unknown: string, other: string) {
    const reference = [await initialize(this, unknown, null), await status(this, unknown, null)];
    assert.equal(reference[0]?.status, 404);
    const otherKey = this.keys.get(other);
    assert.ok(otherKey, `no key for ${other}`);
    for (const bearer of [null, 'gbk_not-a-key', otherKey]) {
      const answers = [await initialize(this, path, bearer), await status(this, path, bearer)];
      answers.forEach((a, i) => {
        assert.equal(a.status, reference[i]?.status, describe(a));
        assert.equal(a.text, reference[i]?.text);
      });
    }
  },
);
