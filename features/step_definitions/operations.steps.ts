// Issue 5 at a perimeter: the stdio bridge, the audit ledger and the operator status.
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Then, When } from '@cucumber/cucumber';
import { childEnv, runCli } from '../support/processes.js';
import { connectStdioAgent, type StdioAgent } from '../support/stdio-agent.js';
import type { BlinderWorld } from '../support/world.js';

const ledgerFile = (w: BlinderWorld) => join(w.stateDir, 'audit', 'audit.jsonl');

When(
  'agent {word} connects through the stdio bridge to {string} on {string}',
  async function (this: BlinderWorld, name: string, id: string, branch: string) {
    const key = this.keys.get(id);
    assert.ok(key, `no key issued for ${id}`);
    const agent = await connectStdioAgent(name, this.url, id, branch, key);
    this.agents.set(name, agent);
  },
);

When('agent {word} closes its stdio connection', async function (this: BlinderWorld, name: string) {
  await this.agent(name).close();
});

Then(
  'the stdio bridge of agent {word} exits and its session is gone',
  async function (this: BlinderWorld, name: string) {
    const agent = this.agent(name) as StdioAgent;
    const code = await Promise.race([agent.exited, new Promise((r) => setTimeout(() => r('timeout'), 10_000))]);
    assert.notEqual(code, 'timeout', 'the bridge did not exit after stdin closed');
    // The bridge ends its HTTP session on the way out.
    let open = -1;
    for (let i = 0; i < 50; i++) {
      const health = await this.api('GET', '/health');
      open = (health.json as { sessions: { open: number } }).sessions.open;
      if (open === 0) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.equal(open, 0, 'the bridge left its session open');
  },
);

async function entries(w: BlinderWorld): Promise<Record<string, unknown>[]> {
  const text = await readFile(ledgerFile(w), 'utf8');
  return text
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

Then(
  'the audit ledger holds for {string} a {string} call {string}, a {string} call {string} and a {string} call {string}',
  async function (
    this: BlinderWorld,
    id: string,
    t1: string,
    v1: string,
    t2: string,
    v2: string,
    t3: string,
    v3: string,
  ) {
    let found: Record<string, unknown>[] = [];
    for (let i = 0; i < 50; i++) {
      found = (await entries(this).catch(() => [])).filter((e) => e.perimeter === id);
      const has = (t: string, v: string) => found.some((e) => e.tool === t && e.verdict === v);
      if (has(t1, v1) && has(t2, v2) && has(t3, v3)) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.fail(`ledger entries for ${id}: ${JSON.stringify(found.map((e) => [e.tool, e.verdict]))}`);
  },
);

Then('the audit ledger names no path in clear', async function (this: BlinderWorld) {
  const text = await readFile(ledgerFile(this), 'utf8');
  for (const path of ['infra/aws/main.tf', 'secrets/prod.env', 'apps/landing/index.html'])
    assert.ok(!text.includes(path), `${path} is in clear in the ledger`);
});

When('the operator verifies the audit ledger', async function (this: BlinderWorld) {
  // Offline: `audit verify` reads the files and talks to no server.
  this.lastCli = await runCli(['audit', 'verify', ledgerFile(this)], { cwd: this.tmp, env: childEnv() });
});

Then('the ledger is reported intact', function (this: BlinderWorld) {
  assert.equal(this.lastCli?.code, 0, `${this.lastCli?.stdout}\n${this.lastCli?.stderr}`);
  assert.match(this.lastCli?.stdout ?? '', /verified/);
});

When('someone changes one character of an entry in the ledger', async function (this: BlinderWorld) {
  const file = ledgerFile(this);
  const text = await readFile(file, 'utf8');
  const edited = text.replace('"verdict":"invisible"', '"verdict":"allow"');
  assert.notEqual(edited, text, 'no invisible entry to edit');
  await writeFile(file, edited);
});

Then('the ledger is reported tampered', function (this: BlinderWorld) {
  assert.equal(this.lastCli?.code, 3, `${this.lastCli?.stdout}\n${this.lastCli?.stderr}`);
  assert.match(this.lastCli?.stdout ?? '', /FAILED/);
});
