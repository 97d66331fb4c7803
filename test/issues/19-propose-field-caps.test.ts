// Issue 19, class 10 (agent-supplied fields): every field a propose_* tool takes is capped in its schema, a plan's
// steps as tightly as the single-step tools (a plan's patch step used to take any size). Checked on the published
// schemas and through a real client.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod/v4';
import { ALL_TOOLS } from '../../src/registry/index.js';
import { createLocalWorkspace } from '../../src/workspace/localfs/index.js';
import { makeRepo, type GitDir } from '../support/gitdir.js';
import { startTestServer, type Agent, type TestServer } from '../support/server.js';

let repo: GitDir;
let srv: TestServer;
let linked: string;
let agent: Agent;

beforeAll(async () => {
  repo = await makeRepo([{ message: 'init', files: { 'app/a.ts': 'a\n' } }]);
  await repo.git('branch', 'work');
  linked = await mkdtemp(join(tmpdir(), 'gb-19caps-'));
  await repo.git('worktree', 'add', '-q', join(linked, 'work'), 'work');
  srv = await startTestServer({ workspace: createLocalWorkspace(), proposals: {} });
  await srv.perimeter({ id: 'app', repo: repo.dir, read: ['app/**'], write: ['app/**'], branches: ['work'] });
  agent = await srv.connect('/mcp/app/work');
}, 60_000);

afterAll(async () => {
  await srv?.close();
  await repo?.cleanup();
  if (linked) await rm(linked, { recursive: true, force: true });
});

/** A valid patch adding app/big.txt with about `bytes` bytes. */
const bigPatch = (bytes: number) => {
  const lines = Math.ceil(bytes / 64);
  const body = Array.from({ length: lines }, (_, i) => `+${String(i).padStart(62, '0')}\n`).join('');
  return `diff --git a/app/big.txt b/app/big.txt\nnew file mode 100644\n--- /dev/null\n+++ b/app/big.txt\n@@ -0,0 +1,${lines} @@\n${body}`;
};

/** Every string and array in a JSON schema has a max (a `const` or `enum` is bounded by itself). */
function unbounded(s: any, at: string, out: string[]): string[] {
  if (s === null || typeof s !== 'object') return out;
  if (s.type === 'string' && s.maxLength === undefined && s.const === undefined && s.enum === undefined) out.push(at);
  if (s.type === 'array' && s.maxItems === undefined) out.push(at);
  for (const [k, v] of Object.entries(s)) if (typeof v === 'object') unbounded(v, `${at}/${k}`, out);
  return out;
}

describe('issue 19: every agent-supplied field of the propose_* tools is capped', () => {
  it('the input schemas bound every string and array', () => {
    const tools = ALL_TOOLS.filter((t) => t.name.startsWith('propose_'));
    expect(tools.length).toBeGreaterThan(5);
    const open = tools.flatMap((t) => unbounded(z.toJSONSchema(t.agentInput, { io: 'input' }), t.name, []));
    expect(open).toEqual([]);
  });

  it('a plan patch step is held to propose_patch’s cap', async () => {
    const patch = bigPatch(1_100_000);
    const single = await agent.call('propose_patch', { patch, reason: 'r' });
    expect(single.isError).toBe(true);
    const plan = await agent.call('propose_plan', { steps: [{ kind: 'patch', patch }], reason: 'r' });
    expect(plan.isError).toBe(true);
    expect((await srv.proposals!.list()).length).toBe(0);
  });

  it('a plan cannot carry more patch bytes in total than one patch', async () => {
    const patch = bigPatch(400_000);
    const plan = await agent.call('propose_plan', {
      steps: [
        { kind: 'patch', patch },
        { kind: 'patch', patch },
        { kind: 'patch', patch },
      ],
      reason: 'r',
    });
    expect(plan.isError).toBe(true);
    expect((await srv.proposals!.list()).length).toBe(0);
  });
});
