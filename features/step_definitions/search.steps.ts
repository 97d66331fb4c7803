// search_code, line windows and changes_since (issue 12), as an agent uses them.
import assert from 'node:assert/strict';
import { Given, Then, When } from '@cucumber/cucumber';
import type { ToolAnswer } from '../support/agents.js';
import type { BlinderWorld } from '../support/world.js';

type Any = Record<string, any>;

async function ask(w: BlinderWorld, name: string, tool: string, args: Record<string, unknown>): Promise<ToolAnswer> {
  const a = await w.agent(name).call(tool, args);
  const all = (w.memo.get(`search:${name}:${tool}`) as ToolAnswer[] | undefined) ?? [];
  all.push(a);
  w.memo.set(`search:${name}:${tool}`, all);
  return a;
}

function lastTwo(w: BlinderWorld, name: string, tool: string): [ToolAnswer, ToolAnswer] {
  const all = (w.memo.get(`search:${name}:${tool}`) as ToolAnswer[] | undefined) ?? [];
  assert.ok(all.length >= 2, `agent ${name} made fewer than two ${tool} calls`);
  return [all[all.length - 2] as ToolAnswer, all[all.length - 1] as ToolAnswer];
}

function latest(w: BlinderWorld, name: string, tool: string): ToolAnswer {
  const all = (w.memo.get(`search:${name}:${tool}`) as ToolAnswer[] | undefined) ?? [];
  assert.ok(all.length > 0, `agent ${name} made no ${tool} call`);
  return all[all.length - 1] as ToolAnswer;
}

Given(
  'the file {string} holding {string} is committed on the new branch {string}',
  async function (this: BlinderWorld, path: string, text: string, branch: string) {
    assert.ok(this.repo);
    await this.repo.git('branch', branch, 'main');
    await this.repo.commit({ branch, message: `add ${path}`, files: { [path]: `${text}\n` } });
  },
);

Given(
  'a {int}-line file {string} is committed on {string}',
  async function (this: BlinderWorld, lines: number, path: string, branch: string) {
    assert.ok(this.repo);
    const text = Array.from({ length: lines }, (_v, i) => `line ${i + 1}`).join('\n') + '\n';
    await this.repo.commit({ branch, message: `add ${path}`, files: { [path]: text } });
  },
);

When('agent {word} searches for {string}', async function (this: BlinderWorld, name: string, query: string) {
  await ask(this, name, 'search_code', { query });
});

When(
  'agent {word} searches for {string} under {string}',
  async function (this: BlinderWorld, name: string, query: string, path: string) {
    await ask(this, name, 'search_code', { query, path });
  },
);

Then('agent {word} finds exactly {string}', function (this: BlinderWorld, name: string, expected: string) {
  const a = latest(this, name, 'search_code');
  assert.ok(!a.isError, a.text);
  const got = ((a.structured as Any).matches as Any[]).map((m) => `${m.path}:${m.line}`);
  assert.deepEqual(
    got,
    expected.split(',').map((s) => s.trim()),
  );
});

Then(
  "agent {word}'s last two searches read the same, apart from the query",
  function (this: BlinderWorld, name: string) {
    const [a, b] = lastTwo(this, name, 'search_code');
    const qa = (a.raw as Any) && JSON.stringify(a.raw);
    const qb = JSON.stringify(b.raw);
    assert.equal(qa.replace('DB_PASSWORD', 'Q'), qb.replace('NO_SUCH_WORD_42', 'Q'));
    assert.deepEqual((b.structured as Any).matches, []);
  },
);

Then(
  "agent {word}'s last two searches read the same, apart from the path",
  function (this: BlinderWorld, name: string) {
    const [a, b] = lastTwo(this, name, 'search_code');
    assert.ok(a.isError && b.isError, `${a.text} / ${b.text}`);
    assert.equal(
      JSON.stringify(a.raw).split('secrets').join('P'),
      JSON.stringify(b.raw).split('nothing-here').join('P'),
    );
  },
);

When(
  'agent {word} reads lines {int} to {int} of {string}',
  async function (this: BlinderWorld, name: string, from: number, to: number, path: string) {
    await ask(this, name, 'get_file', { path, start_line: from, end_line: to });
  },
);

Then(
  'agent {word} gets {string} of {int} lines',
  function (this: BlinderWorld, name: string, content: string, total: number) {
    const a = latest(this, name, 'get_file');
    assert.ok(!a.isError, a.text);
    const s = a.structured as Any;
    assert.equal(s.content, content.replace(/\\n/g, '\n'));
    assert.equal(s.total_lines, total);
  },
);

When('agent {word} asks for changes without a cursor', async function (this: BlinderWorld, name: string) {
  const a = await ask(this, name, 'changes_since', {});
  this.memo.set(`cursor:${name}`, (a.structured as Any).cursor);
});

When('agent {word} asks for changes since its cursor', async function (this: BlinderWorld, name: string) {
  const a = await ask(this, name, 'changes_since', { cursor: this.memo.get(`cursor:${name}`) });
  assert.ok(!a.isError, a.text);
  this.memo.set(`cursor:${name}`, (a.structured as Any).cursor);
});

When(
  "agent {word} asks for changes with agent {word}'s cursor",
  async function (this: BlinderWorld, name: string, other: string) {
    await ask(this, name, 'changes_since', { cursor: this.memo.get(`cursor:${other}`) });
  },
);

Then('agent {word} starts fresh', function (this: BlinderWorld, name: string) {
  const a = latest(this, name, 'changes_since');
  assert.ok(!a.isError, a.text);
  assert.deepEqual(
    { ...(a.structured as Any), cursor: 'C' },
    { cursor: 'C', fresh_instance: true, changes: [], truncated: false },
  );
});

When(
  'upstream a commit changes {string} and {string} on {string}',
  async function (this: BlinderWorld, p1: string, p2: string, branch: string) {
    assert.ok(this.repo);
    await this.repo.commit({
      branch,
      message: 'two changes',
      files: { [p1]: 'changed one\n', [p2]: 'DB_PASSWORD=changed\n' },
    });
  },
);

When(
  'upstream a commit changes {string} on {string}',
  async function (this: BlinderWorld, path: string, branch: string) {
    assert.ok(this.repo);
    await this.repo.commit({ branch, message: 'one change', files: { [path]: 'DB_PASSWORD=again\n' } });
  },
);

Then('agent {word} sees the changes {string}', function (this: BlinderWorld, name: string, expected: string) {
  const a = latest(this, name, 'changes_since');
  const s = a.structured as Any;
  assert.equal(s.fresh_instance, false, a.text);
  assert.deepEqual(
    (s.changes as Any[]).map((c) => `${c.path} ${c.change}`),
    expected.split(',').map((x) => x.trim()),
  );
});

Then(
  "agent {word}'s last two change answers read the same, apart from the cursor",
  function (this: BlinderWorld, name: string) {
    const [a, b] = lastTwo(this, name, 'changes_since');
    const mask = (t: ToolAnswer) => JSON.stringify(t.raw).replace(/gbc1\.[A-Za-z0-9_-]+/g, 'C');
    assert.equal(mask(a), mask(b));
    assert.deepEqual((b.structured as Any).changes, []);
  },
);
