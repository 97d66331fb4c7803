// Deep Research's two calls (issue 26): `search` then `fetch` of each result, as ChatGPT sends them.
import assert from 'node:assert/strict';
import { Given, Then, When } from '@cucumber/cucumber';
import type { ToolAnswer } from '../support/agents.js';
import type { BlinderWorld } from '../support/world.js';

type Result = { id: string; title: string; url: string };

const list = (s: string) =>
  s
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);

/** The connector contract: the text block is the structured content's JSON. */
function contract(a: ToolAnswer): Record<string, unknown> {
  assert.ok(!a.isError, a.text);
  assert.deepEqual(JSON.parse(a.text), a.structured);
  return a.structured as Record<string, unknown>;
}

const results = (w: BlinderWorld, name: string): Result[] =>
  (w.memo.get(`dr:search:${name}`) as Result[] | undefined) ?? [];

async function fetchId(w: BlinderWorld, name: string, id: string): Promise<ToolAnswer> {
  const a = await w.agent(name).call('fetch', { id });
  const all = (w.memo.get(`dr:fetch:${name}`) as ToolAnswer[] | undefined) ?? [];
  all.push(a);
  w.memo.set(`dr:fetch:${name}`, all);
  return a;
}

Given(
  'the perimeter {string} reading {string} with the tools {string} and an answer cap of {int} bytes',
  async function (this: BlinderWorld, id: string, read: string, tools: string, cap: number) {
    await this.createPerimeter({
      id,
      read: list(read),
      write: [],
      tools: list(tools),
      limits: { max_answer_bytes: cap },
    });
  },
);

When('agent {word} calls search for {string}', async function (this: BlinderWorld, name: string, query: string) {
  const out = contract(await this.agent(name).call('search', { query }));
  this.memo.set(`dr:search:${name}`, out.results as Result[]);
});

Then(
  "agent {word}'s search results are exactly {string}",
  function (this: BlinderWorld, name: string, expected: string) {
    const got = results(this, name);
    assert.deepEqual(
      got.map((r) => r.title),
      list(expected),
    );
    for (const r of got) {
      assert.match(r.id, /^gbi1\./);
      assert.ok(r.url.startsWith('git-blinder://') && r.url.endsWith(`/${r.title}`), r.url);
    }
  },
);

Then("agent {word} fetches every result and reads each file's text", async function (this: BlinderWorld, name: string) {
  const got = results(this, name);
  assert.ok(got.length > 0, 'no results to fetch');
  for (const r of got) {
    const f = contract(await fetchId(this, name, r.id));
    const file = await this.agent(name)
      .call('get_file', { path: r.title })
      .catch(() => undefined);
    assert.equal(f.id, r.id);
    assert.equal(f.title, r.title);
    assert.equal(f.url, r.url);
    assert.equal((f.metadata as { path: string }).path, r.title);
    assert.ok(typeof f.text === 'string' && f.text.length > 0);
    // The perimeter grants only the aliases: get_file is unknown there, so the text is checked against git itself.
    if (file && !file.isError) assert.equal(f.text, (file.structured as { content: string }).content);
    assert.equal(f.text, await this.repo?.git('show', `main:${r.title}`));
  }
});

When(
  "agent {word} fetches agent {word}'s first result",
  async function (this: BlinderWorld, name: string, other: string) {
    const first = results(this, other)[0];
    assert.ok(first, `agent ${other} has no result`);
    await fetchId(this, name, first.id);
  },
);

When('agent {word} fetches its first result', async function (this: BlinderWorld, name: string) {
  const first = results(this, name)[0];
  assert.ok(first, `agent ${name} has no result`);
  await fetchId(this, name, first.id);
});

When('agent {word} fetches the made-up id {string}', async function (this: BlinderWorld, name: string, id: string) {
  await fetchId(this, name, id);
});

Then("agent {word}'s last two fetches read the same", function (this: BlinderWorld, name: string) {
  const all = (this.memo.get(`dr:fetch:${name}`) as ToolAnswer[] | undefined) ?? [];
  const [a, b] = all.slice(-2);
  assert.ok(a && b && a.isError && b.isError, `${a?.text} / ${b?.text}`);
  assert.equal(JSON.stringify(a.raw), JSON.stringify(b.raw));
  assert.ok(!a.text.includes('README'), a.text);
});

Then(
  'agent {word} gets the start of {string} cut at a line, with truncated true and its sizes',
  async function (this: BlinderWorld, name: string, path: string) {
    const all = (this.memo.get(`dr:fetch:${name}`) as ToolAnswer[] | undefined) ?? [];
    const last = all.at(-1);
    assert.ok(last);
    const f = contract(last);
    const whole = (await this.repo?.git('show', `main:${path}`)) ?? '';
    const text = f.text as string;
    const meta = f.metadata as { truncated: boolean; total_bytes: number; served_bytes: number; next_line: number };
    assert.equal(f.title, path);
    assert.equal(meta.truncated, true);
    assert.equal(meta.total_bytes, Buffer.byteLength(whole));
    assert.equal(meta.served_bytes, Buffer.byteLength(text));
    assert.ok(whole.startsWith(text) && text.endsWith('\n') && text.length < whole.length);
    assert.equal(meta.next_line, text.split('\n').length);
  },
);
