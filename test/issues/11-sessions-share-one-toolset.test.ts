// Issue 11 item 4: a 2025-era session carries no copy of the tool registry and schemas. Sessions and stateless
// requests are served from one toolset per (surface, grant set), built once; what a client sees stays byte for byte
// what the SDK's McpServer sent (tools/list, validation errors, unknown and ungranted tools).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bindAgent, ROOT_BINDING, type Binding } from '../../src/core/index.js';
import { createToolsets } from '../../src/mcp/index.js';
import { ALL_TOOLS } from '../../src/registry/index.js';
import { makeRepo, type GitDir } from '../support/gitdir.js';
import { startTestServer, type TestServer } from '../support/server.js';

let repo: GitDir;
let srv: TestServer;

const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 't', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

/** A raw 2026-07-28 request (no session): the JSON body of the answer. */
async function modern(path: string, method: string, params: Record<string, unknown>, name?: string): Promise<any> {
  const res = await fetch(srv.url + path, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': method,
      ...(name ? { 'mcp-name': name } : {}),
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: { ...params, _meta: META } }),
  });
  return res.json();
}

/** The binding a request to /mcp/<id> gets (the perimeter as the store holds it). */
function binding(id: string): Binding {
  const p = srv.store.get(id);
  const b = p ? bindAgent(p, undefined) : undefined;
  if (!b?.ok) throw new Error(`no binding for ${id}`);
  return b.value;
}

beforeAll(async () => {
  repo = await makeRepo([{ message: 'init', files: { 'src/a.ts': 'export const a = 1;\n', 'docs/b.md': 'b\n' } }]);
  srv = await startTestServer();
  await srv.perimeter({ id: 'full', repo: repo.dir, read: ['src/**'], write: ['src/**'] });
  await srv.perimeter({ id: 'other', repo: repo.dir, read: ['docs/**'], write: ['docs/**'] });
  await srv.perimeter({ id: 'narrow', repo: repo.dir, read: ['src/**'], write: [], tools: ['get_file'] });
});

afterAll(async () => {
  await srv?.close();
  await repo?.cleanup();
});

// The tools the operator surface never lists, as they were named before exposure moved onto the tools (issue 22):
// the root listing must not change.
const AGENT_ONLY_TOOLS = [
  'proposal_status',
  'proposal_cancel',
  'create_pull_request',
  'list_pull_requests',
  'get_pull_request',
  'get_pull_request_files',
  'list_pull_request_comments',
  'get_pull_request_status',
  'activity',
  'lease_acquire',
  'lease_release',
];
const WORKSPACE_PROPOSE_TOOLS = [
  'propose_commit',
  'propose_patch',
  'propose_discard',
  'propose_merge',
  'propose_rebase',
  'propose_reset',
  'propose_branch',
  'propose_push',
  'propose_plan',
];

describe('issue 11: one toolset per surface and grant set', () => {
  it('hands every binding with the same exposed tools the same frozen toolset, and a narrower grant its own', () => {
    const toolsetOf = createToolsets();
    const a = toolsetOf(binding('full'));
    const b = toolsetOf(binding('other'));
    const narrow = toolsetOf(binding('narrow'));
    // Two perimeters with different globs but the same exposed tools share one toolset.
    expect(b.listing.map((t) => t.name)).toEqual(a.listing.map((t) => t.name));
    expect(b).toBe(a);
    expect(narrow).not.toBe(a);
    expect(narrow.listing.map((t) => t.name)).toEqual(['get_file']);
    expect([...narrow.byName.keys()]).toEqual(['get_file']);
    // A tool's entry is converted once per surface: the narrow set reuses the full set's object.
    expect(narrow.listing[0]).toBe(a.listing.find((t) => t.name === 'get_file'));
    expect(Object.isFrozen(a.listing)).toBe(true);
    expect(Object.isFrozen((a.listing[0] as { inputSchema: object }).inputSchema)).toBe(true);
    // The operator surface has its own entries (its input schemas name repo and ref); proposal follow-ups are agent-only.
    const root = toolsetOf(ROOT_BINDING);
    // The search/fetch aliases are agent-only (never on the operator surface).
    expect(root.listing.map((t) => t.name)).toEqual(
      ALL_TOOLS.filter((t) => t.aliasOf === undefined)
        .map((t) => t.name)
        .filter((n) => !AGENT_ONLY_TOOLS.includes(n) && !WORKSPACE_PROPOSE_TOOLS.includes(n)),
    );
    expect(JSON.stringify(root.listing)).toContain('"repo"');
    expect(JSON.stringify(a.listing)).not.toContain('"repo"');
  });

  it('serves the same tools/list to a 2025 session and a 2026-07-28 request, per grant', async () => {
    for (const [id, names] of [
      ['full', undefined],
      ['narrow', ['get_file']],
    ] as const) {
      const agent = await srv.connect(`/mcp/${id}`);
      const legacy = (await agent.client.listTools()).tools;
      const stateless = (await modern(`/mcp/${id}`, 'tools/list', {})).result.tools;
      expect(stateless.map((t: { name: string }) => t.name)).toEqual(legacy.map((t) => t.name));
      expect(stateless).toEqual(JSON.parse(JSON.stringify(legacy)));
      if (names) expect(legacy.map((t) => t.name)).toEqual(names);
      await agent.close();
    }
  });

  it('answers an ungranted tool exactly like a tool that does not exist, in both eras', async () => {
    const agent = await srv.connect('/mcp/narrow');
    const ungranted = await agent.client.callTool({ name: 'get_tree', arguments: {} }).then(
      () => 'answered',
      (e: Error) => e.message.replace('get_tree', 'X'),
    );
    const missing = await agent.client.callTool({ name: 'no_such_tool', arguments: {} }).then(
      () => 'answered',
      (e: Error) => e.message.replace('no_such_tool', 'X'),
    );
    expect(ungranted).toBe(missing);
    expect(ungranted).toContain('Tool X not found');
    await agent.close();
    const a = await modern('/mcp/narrow', 'tools/call', { name: 'get_tree', arguments: {} }, 'get_tree');
    const b = await modern('/mcp/narrow', 'tools/call', { name: 'no_such_tool', arguments: {} }, 'no_such_tool');
    expect(JSON.stringify(a).replace('get_tree', 'X')).toBe(JSON.stringify(b).replace('no_such_tool', 'X'));
  });

  it('keeps the validation answer the SDK gave: an isError result naming the field', async () => {
    const agent = await srv.connect('/mcp/full');
    const bad = await agent.call('get_file', { path: 3 });
    expect(bad.isError).toBe(true);
    expect(bad.text).toBe(
      'Input validation error: Invalid arguments for tool get_file: path: Invalid input: expected string, received number',
    );
    const extra = await agent.call('get_tree', { bogus: 1 });
    expect(extra.text).toBe('Input validation error: Invalid arguments for tool get_tree: Unrecognized key: "bogus"');
    // A valid call still runs the whole pipeline (and the client checks the answer against the advertised schema).
    const ok = await agent.call('get_file', { path: 'src/a.ts' });
    expect(ok.isError).toBeUndefined();
    expect(ok.structured.content).toBe('export const a = 1;\n');
    await agent.close();
  });

  it('gives each perimeter its own instructions although the toolset is shared', async () => {
    const full = await srv.connect('/mcp/full');
    const other = await srv.connect('/mcp/other');
    expect(full.client.getInstructions()).toContain('"src/**"');
    expect(other.client.getInstructions()).toContain('"docs/**"');
    expect(other.client.getInstructions()).not.toContain('src/**');
    await full.close();
    await other.close();
  });
});
