// Issue 25, "the human views hide the policy": `perimeter show|list` and `perimeter create` showed read/write/tools
// only, so an operator could not see at a glance that a perimeter writes without approval, hides more, may write
// protected paths or has no key; and `git-blinder status` listed the whole agent catalogue (proposal_status,
// proposal_cancel…) for a perimeter whose `tools` exclude them. Now every human view carries the policy, and status
// lists per perimeter and branch exactly what tools/list gives (the one exposure rule, isExposed).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLocalWorkspace } from '../../src/workspace/localfs/index.js';
import { runBuiltCli } from '../support/built-cli.js';
import { makeRepo, type GitDir } from '../support/gitdir.js';
import { OPS_TOKEN, startTestServer, type TestServer } from '../support/server.js';

let repo: GitDir;
let srv: TestServer;

beforeAll(async () => {
  repo = await makeRepo([
    { message: 'init', files: { 'docs/a.md': 'a\n', 'src/x.ts': 'x\n' } },
    { message: 'feat', files: { 'docs/b.md': 'b\n' }, branch: 'feat' },
  ]);
  srv = await startTestServer({ workspace: createLocalWorkspace() });
  // Approval required, but its tools leave out push_files and the proposal tools: tools/list gives neither.
  await srv.perimeter({
    id: 'narrow',
    repo: repo.dir,
    read: ['docs/**'],
    write: ['docs/**'],
    tools: ['get_file', 'get_tree'],
    approval: { push_files: 'required' },
  });
  // The whole catalogue with approval: proposal_status and proposal_cancel are listed.
  await srv.perimeter({
    id: 'reviewed',
    repo: repo.dir,
    read: ['docs/**'],
    write: ['docs/**'],
    approval: { push_files: 'required' },
    branches: ['feat'],
  });
  // Writes land at once; hardening and limits set.
  await srv.perimeter({
    id: 'open-writer',
    repo: repo.dir,
    read: ['**'],
    write: ['docs/**'],
    private: ['docs/secret/**'],
    allow_protected: ['.github/workflows/docs.yml'],
    allow_secrets: true,
    allow_binary: true,
    limits: { calls_per_minute: 42 },
  });
}, 60_000);

afterAll(async () => {
  await srv?.close();
  await repo?.cleanup();
});

const cli = (args: string[]) => runBuiltCli([...args, '--url', srv.url], { env: { GIT_BLINDER_OPS_TOKEN: OPS_TOKEN } });

describe('status lists what tools/list gives', () => {
  it("per perimeter and branch, equal to a real client's tools/list (checked-out branch with its workspace tools)", async () => {
    const status = await srv.api('GET', '/api/health');
    expect(status.status).toBe(200);
    const byId = new Map<string, Record<string, string[]>>(
      (status.json.perimeters as { id: string; tools: Record<string, string[]> }[]).map((p) => [p.id, p.tools]),
    );
    for (const [id, branches] of [
      ['narrow', ['main']],
      ['reviewed', ['main', 'feat']],
      ['open-writer', ['main']],
    ] as const) {
      for (const branch of branches) {
        const agent = await srv.connect(`/mcp/${id}/${branch}`);
        const listed = (await agent.client.listTools()).tools.map((t) => t.name).sort();
        await agent.close();
        expect([...(byId.get(id)?.[branch] ?? [])].sort(), `${id}@${branch}`).toEqual(listed);
      }
    }
    expect(byId.get('narrow')?.main).not.toContain('proposal_status');
    expect(byId.get('reviewed')?.main).toContain('proposal_status');
    // main is checked out (workspace tools), feat is not.
    expect(byId.get('reviewed')?.main).toContain('workspace_status');
    expect(byId.get('reviewed')?.feat).not.toContain('workspace_status');
    expect(status.json).not.toHaveProperty('agent_catalogue');
  });

  it('the human status prints those lists, never a tool the perimeter does not get', async () => {
    const r = await cli(['status']);
    expect(r.code, r.stderr).toBe(0);
    const narrow = r.stdout.split('\n').find((l) => /^narrow\s+main\s/.test(l));
    expect(narrow).toBeDefined();
    expect(narrow).toMatch(/get_tree, get_file$/);
    expect(r.stdout).toMatch(/^reviewed\s+main\s.*proposal_status/m);
  });
});

describe('show, list and create carry the policy', () => {
  it('show: approval, private, allow_*, limits, key count, origin', async () => {
    const writer = await cli(['perimeter', 'show', 'open-writer']);
    expect(writer.code, writer.stderr).toBe(0);
    expect(writer.stdout).toMatch(/^approval:\s+push_files none \(pushes land at once, unreviewed\)$/m);
    expect(writer.stdout).toMatch(/^private:\s+docs\/secret\/\*\*$/m);
    expect(writer.stdout).toMatch(/^allow_protected:\s+\.github\/workflows\/docs\.yml$/m);
    expect(writer.stdout).toMatch(/^allow_secrets:\s+yes$/m);
    expect(writer.stdout).toMatch(/^allow_binary:\s+yes$/m);
    expect(writer.stdout).toMatch(/^limits:\s+calls_per_minute=42$/m);
    expect(writer.stdout).toMatch(/^keys:\s+0 /m);
    expect(writer.stdout).toMatch(/^origin:\s+runtime/m);
    const reviewed = await cli(['perimeter', 'show', 'reviewed']);
    expect(reviewed.stdout).toMatch(/^approval:\s+push_files required \(pushes wait for a person\)$/m);
    expect(reviewed.stdout).toMatch(/^allow_secrets:\s+no$/m);
    expect(reviewed.stdout).toMatch(/^limits:\s+\(server defaults\)$/m);
  });

  it('list: origin, approval, key count and the rest of the policy in columns', async () => {
    const issued = await cli(['perimeter', 'key', 'issue', 'reviewed']);
    expect(issued.code, issued.stderr).toBe(0);
    const r = await cli(['perimeter', 'list']);
    expect(r.code, r.stderr).toBe(0);
    const [header, ...rows] = r.stdout.split('\n');
    expect(header).toMatch(/^ID\s+ORIGIN\s+REPO\s+READ\s+WRITE\s+APPROVAL\s+KEYS\s+BRANCHES\s+TOOLS\s+ALSO$/);
    const row = (id: string) => rows.find((l) => l.startsWith(`${id} `)) ?? '';
    expect(row('reviewed')).toMatch(/ runtime .* required +1 /);
    expect(row('open-writer')).toMatch(/ none +0 /);
    expect(row('open-writer')).toContain(
      'private=docs/secret/**; allow_protected=.github/workflows/docs.yml; allow_secrets; allow_binary; limits: calls_per_minute=42',
    );
    expect(row('narrow')).toMatch(/ -$/);
  });

  it('create prints the same view, with the approval mode it was given', async () => {
    const r = await cli([
      'perimeter',
      'create',
      'fresh',
      '--repo',
      repo.dir,
      '--read',
      'docs/**',
      '--write',
      'docs/**',
      '--approval-push',
      'required',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^approval:\s+push_files required/m);
    expect(r.stdout).toMatch(/^keys:\s+0 /m);
    expect(r.stdout).toMatch(/^allow_binary:\s+no$/m);
  });
});
