// Agents: real MCP clients on their perimeter URL, calling tools the way a coding agent would.
import assert from 'node:assert/strict';
import { Then, When } from '@cucumber/cucumber';
import type { Era, ToolAnswer } from '../support/agents.js';
import type { BlinderWorld } from '../support/world.js';

const list = (s: string) =>
  s
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);

const NO_SUCH_SHA = '0123456789abcdef0123456789abcdef01234567';

function era(s: string): Era {
  assert.ok(s === 'legacy' || s === 'auto', `unknown protocol era ${s}`);
  return s;
}

/** Calls a tool as agent `name` and remembers the answer (last one, and the history per agent). */
async function ask(
  w: BlinderWorld,
  name: string,
  tool: string,
  args: Record<string, unknown> = {},
): Promise<ToolAnswer> {
  const a = await w.agent(name).call(tool, args);
  w.lastAnswer = a;
  w.memo.set(`last:${name}`, a);
  const all = (w.memo.get(`answers:${name}`) as ToolAnswer[] | undefined) ?? [];
  all.push(a);
  w.memo.set(`answers:${name}`, all);
  return a;
}

function last(w: BlinderWorld, name: string): ToolAnswer {
  const a = w.memo.get(`last:${name}`) as ToolAnswer | undefined;
  assert.ok(a, `agent ${name} made no call`);
  return a;
}

const show = (a: ToolAnswer) => JSON.stringify(a.raw);

// ---- connecting -------------------------------------------------------------------------------------------------

When('agent {word} connects to {string}', async function (this: BlinderWorld, name: string, path: string) {
  await this.connect(name, path, 'legacy');
  this.memo.set('current', name);
});

When(
  'agent {word} connects to {string} speaking the {word} protocol',
  async function (this: BlinderWorld, name: string, path: string, e: string) {
    await this.connect(name, path, era(e));
    this.memo.set('current', name);
  },
);

When(
  'agent {word} connects to {string} without a key',
  async function (this: BlinderWorld, name: string, path: string) {
    await this.connect(name, path, 'legacy', null);
    this.memo.set('current', name);
  },
);

When(
  'an operator client connects to {string} speaking the {word} protocol',
  async function (this: BlinderWorld, path: string, e: string) {
    await this.connect('operator', path, era(e));
    this.memo.set('current', 'operator');
  },
);

async function assertTools(w: BlinderWorld, name: string, expected: string) {
  const tools = await w.agent(name).tools();
  assert.deepEqual([...tools].sort(), list(expected).sort(), `agent ${name} lists ${tools.join(', ')}`);
}

Then(
  'agent {word} lists exactly the tools {string}',
  async function (this: BlinderWorld, name: string, expected: string) {
    await assertTools(this, name, expected);
  },
);

Then('it lists exactly the tools {string}', async function (this: BlinderWorld, expected: string) {
  await assertTools(this, String(this.memo.get('current')), expected);
});

// ---- reading ----------------------------------------------------------------------------------------------------

When('agent {word} reads the file {string}', async function (this: BlinderWorld, name: string, path: string) {
  await ask(this, name, 'get_file', { path });
});

Then('agent {word} gets the content of {string}', async function (this: BlinderWorld, name: string, path: string) {
  const a = last(this, name);
  assert.ok(!a.isError, show(a));
  assert.equal(a.structured?.path, path);
  assert.ok(typeof a.structured?.content === 'string' && a.structured.content.length > 0, show(a));
});

Then('agent {word} is told the file {string} is not found', function (this: BlinderWorld, name: string, path: string) {
  const a = last(this, name);
  assert.ok(a.isError, show(a));
  assert.match(a.text, /^Not found/);
  assert.ok(a.text.includes(path));
});

When('agent {word} calls the tool {string}', async function (this: BlinderWorld, name: string, tool: string) {
  try {
    await ask(this, name, tool, {});
  } catch (e) {
    // The SDK may throw a protocol error instead of returning an isError result; both are answers.
    const a: ToolAnswer = {
      isError: true,
      text: e instanceof Error ? e.message : String(e),
      structured: undefined,
      raw: String(e),
    };
    this.memo.set(`last:${name}`, a);
  }
});

Then('agent {word} is told the tool does not exist', function (this: BlinderWorld, name: string) {
  const a = last(this, name);
  assert.ok(a.isError, show(a));
  assert.match(a.text, /not found|unknown tool/i, show(a));
});

When('agent {word} tries to read the file {string}', async function (this: BlinderWorld, name: string, path: string) {
  try {
    await ask(this, name, 'get_file', { path });
    this.memo.set(`refused:${name}`, undefined);
  } catch (e) {
    this.memo.set(`refused:${name}`, e instanceof Error ? e.message : String(e));
  }
});

Then('agent {word} is turned away as if its URL did not exist', function (this: BlinderWorld, name: string) {
  const refusal = this.memo.get(`refused:${name}`);
  assert.ok(typeof refusal === 'string', `agent ${name} was served: ${JSON.stringify(this.memo.get(`last:${name}`))}`);
  assert.match(refusal, /404|Not found/i);
});

// ---- history ----------------------------------------------------------------------------------------------------

When('agent {word} lists the commits', async function (this: BlinderWorld, name: string) {
  await ask(this, name, 'list_commits', {});
});

Then(
  'agent {word} sees the commits {string} in this order',
  function (this: BlinderWorld, name: string, messages: string) {
    const a = last(this, name);
    assert.ok(!a.isError, show(a));
    const commits = (a.structured?.commits as { message: string }[] | undefined) ?? [];
    assert.deepEqual(
      commits.map((c) => c.message.trim()),
      list(messages),
    );
  },
);

When('agent {word} shows the commit {string}', async function (this: BlinderWorld, name: string, message: string) {
  const a = await ask(this, name, 'get_commit', { sha: await this.shaOf(message) });
  this.memo.set('commit-answers', [
    ...((this.memo.get('commit-answers') as ToolAnswer[] | undefined) ?? []),
    { ...a, sha: await this.shaOf(message) },
  ]);
});

When('agent {word} shows a commit that does not exist', async function (this: BlinderWorld, name: string) {
  const a = await ask(this, name, 'get_commit', { sha: NO_SUCH_SHA });
  this.memo.set('commit-answers', [
    ...((this.memo.get('commit-answers') as ToolAnswer[] | undefined) ?? []),
    { ...a, sha: NO_SUCH_SHA },
  ]);
});

Then(
  'agent {word} sees the changed files {string} and {int} omitted',
  function (this: BlinderWorld, name: string, files: string, omitted: number) {
    const a = last(this, name);
    assert.ok(!a.isError, show(a));
    const seen = ((a.structured?.files as { path: string }[] | undefined) ?? []).map((f) => f.path).sort();
    assert.deepEqual(seen, list(files).sort());
    assert.equal(a.structured?.omitted_count, omitted);
  },
);

Then("agent {word}'s answer never mentions {string}", function (this: BlinderWorld, name: string, words: string) {
  const text = show(last(this, name));
  for (const w of list(words)) assert.ok(!text.includes(w), `"${w}" leaked into ${text}`);
});

Then('both answers are the same {string} answer, apart from the SHA', function (this: BlinderWorld, kind: string) {
  const answers = (this.memo.get('commit-answers') as (ToolAnswer & { sha: string })[] | undefined) ?? [];
  assert.equal(answers.length, 2, 'expected two get_commit answers');
  const [x, y] = answers as [ToolAnswer & { sha: string }, ToolAnswer & { sha: string }];
  const norm = (a: ToolAnswer & { sha: string }) => JSON.stringify(a.raw).split(a.sha).join('<sha>');
  assert.ok(x.isError && y.isError, `${show(x)}\n${show(y)}`);
  assert.ok(x.text.toLowerCase().includes(kind.toLowerCase()), show(x));
  assert.equal(norm(x), norm(y));
});

// ---- invisible = missing ----------------------------------------------------------------------------------------

const argsFor = (tool: string, path: string): Record<string, unknown> =>
  tool === 'get_files'
    ? { paths: [path] }
    : tool === 'edit_file'
      ? { path, edits: [{ old_text: 'resource', new_text: 'x' }] }
      : { path };

Then(
  '{word} on {string} and on {string} give the same answer apart from the path',
  async function (this: BlinderWorld, tool: string, hidden: string, missing: string) {
    const name = String(this.memo.get('current'));
    const [h, m] = [
      await ask(this, name, tool, argsFor(tool, hidden)),
      await ask(this, name, tool, argsFor(tool, missing)),
    ];
    const norm = (a: ToolAnswer, p: string) => JSON.stringify(a.raw).split(p).join('<path>');
    if (tool !== 'get_files') assert.ok(h.isError, `${tool} ${hidden} should read as missing: ${show(h)}`);
    assert.equal(norm(h, hidden), norm(m, missing));
  },
);

Then('get_tree of the root lists only {string}', async function (this: BlinderWorld, top: string) {
  const name = String(this.memo.get('current'));
  const flat = await ask(this, name, 'get_tree', {});
  assert.deepEqual(
    ((flat.structured?.entries as { path: string }[] | undefined) ?? []).map((e) => e.path),
    [top],
    show(flat),
  );
  const deep = await ask(this, name, 'get_tree', { recursive: true });
  for (const e of (deep.structured?.entries as { path: string }[] | undefined) ?? [])
    assert.ok(e.path === top || e.path.startsWith(`${top}/`), show(deep));
});

// ---- writing ----------------------------------------------------------------------------------------------------

When(
  'agent {word} pushes {string} with the message {string}',
  async function (this: BlinderWorld, name: string, path: string, message: string) {
    await ask(this, name, 'push_files', { message, files: [{ path, content: `# ${message}\n` }] });
  },
);

When(
  'agent {word} pushes {string} and {string} with the message {string}',
  async function (this: BlinderWorld, name: string, p1: string, p2: string, message: string) {
    await ask(this, name, 'push_files', {
      message,
      files: [p1, p2].map((path) => ({ path, content: `# ${message}\n` })),
    });
  },
);

Then('the push lands on the branch {string}', async function (this: BlinderWorld, branch: string) {
  const a = this.lastAnswer;
  assert.ok(a && !a.isError, a && show(a));
  assert.equal(a.structured?.branch, branch);
  assert.equal(a.structured?.commit, await this.head(branch));
});

Then(
  'the head of {string} upstream is a commit {string} changing only {string}',
  async function (this: BlinderWorld, branch: string, message: string, path: string) {
    assert.ok(this.repo);
    assert.equal((await this.repo.git('log', '-1', '--format=%s', branch)).trim(), message);
    const changed = (await this.repo.git('diff-tree', '--no-commit-id', '--name-only', '-r', branch))
      .trim()
      .split('\n');
    assert.deepEqual(changed, [path]);
  },
);

Then('the branch {string} did not move upstream', async function (this: BlinderWorld, branch: string) {
  const before = this.memo.get(`head:${branch}`);
  assert.ok(before, `no recorded head for ${branch}`);
  assert.equal(await this.head(branch), before);
});

Then('the push is refused naming {string} and saying nothing was written', function (this: BlinderWorld, path: string) {
  const a = this.lastAnswer;
  assert.ok(a?.isError, a && show(a));
  assert.ok(a.text.includes(path), a.text);
  assert.match(a.text, /refused/i);
  assert.match(a.text, /nothing was written/i);
  // The refusal never repeats the policy.
  assert.ok(!a.text.includes('**'), `the refusal quotes a glob: ${a.text}`);
});

// ---- two agents at once -----------------------------------------------------------------------------------------

interface Exchange {
  tool: string;
  args: Record<string, unknown>;
  answer: ToolAnswer;
}

const BURSTS: Record<string, { tool: string; args: Record<string, unknown> }[]> = {
  infra: [
    { tool: 'get_tree', args: { recursive: true } },
    { tool: 'get_file', args: { path: 'infra/aws/main.tf' } },
    { tool: 'get_file', args: { path: 'infra/gcp/main.tf' } },
    { tool: 'get_files', args: { paths: ['infra/aws/main.tf', 'infra/gcp/main.tf'] } },
    { tool: 'list_commits', args: {} },
  ],
  landing: [
    { tool: 'get_tree', args: { recursive: true } },
    { tool: 'get_file', args: { path: 'apps/landing/index.html' } },
    { tool: 'get_files', args: { paths: ['apps/landing/index.html'] } },
    { tool: 'list_commits', args: {} },
  ],
};

When(
  'agents {word} and {word} make a burst of calls at the same time',
  async function (this: BlinderWorld, x: string, y: string) {
    const mixed = await this.shaOf('chore: bump everything');
    const plan: { agent: string; tool: string; args: Record<string, unknown> }[] = [];
    for (let round = 0; round < 1; round += 1) {
      for (const [agent, perimeter] of [
        [x, this.agent(x).path.split('/')[2] ?? ''],
        [y, this.agent(y).path.split('/')[2] ?? ''],
      ] as const) {
        for (const c of [...(BURSTS[perimeter] ?? []), { tool: 'get_commit', args: { sha: mixed } }])
          plan.push({ agent, ...c });
      }
    }
    const results = await Promise.all(
      plan.map(async (p) => ({ ...p, answer: await this.agent(p.agent).call(p.tool, p.args) })),
    );
    for (const name of [x, y])
      this.memo.set(`burst:${name}`, results.filter((r) => r.agent === name) satisfies Exchange[]);
  },
);

const EXCLUSIVE_MESSAGES: Record<string, string[]> = {
  infra: ['landing: new hero', 'secrets: rotate'],
  'apps/landing': ['infra: tune aws', 'secrets: rotate'],
};

Then(
  'every answer agent {word} received belongs to {string} only',
  function (this: BlinderWorld, name: string, prefix: string) {
    const exchanges = (this.memo.get(`burst:${name}`) as Exchange[] | undefined) ?? [];
    assert.ok(exchanges.length > 0);
    for (const { tool, args, answer } of exchanges) {
      const text = JSON.stringify(answer.raw);
      assert.ok(!answer.isError, `${tool} ${JSON.stringify(args)} failed: ${text}`);
      // Every repository path in the answer lies inside this agent's perimeter.
      for (const m of text.matchAll(/\b(?:infra|apps|secrets|README)[\w./-]*/g)) {
        const inside = m[0] === prefix || m[0].startsWith(`${prefix}/`) || prefix.startsWith(`${m[0]}/`);
        assert.ok(inside, `agent ${name} got "${m[0]}" in ${tool}: ${text}`);
      }
      for (const msg of EXCLUSIVE_MESSAGES[prefix] ?? [])
        assert.ok(!text.includes(msg), `agent ${name} got "${msg}" in ${tool}: ${text}`);
      // And it is the answer to this very request.
      if (tool === 'get_file') assert.equal(answer.structured?.path, args.path);
      if (tool === 'get_files') {
        assert.deepEqual(
          ((answer.structured?.files as { path: string }[] | undefined) ?? []).map((f) => f.path),
          args.paths,
        );
      }
      if (tool === 'get_commit') assert.equal(answer.structured?.sha, args.sha);
    }
  },
);
