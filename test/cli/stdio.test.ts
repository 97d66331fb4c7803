// The stdio bridge as a real child process between a real stdio MCP client and a real server.
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeRepo, type GitDir } from '../support/gitdir.js';
import { startTestServer, type TestServer } from '../support/server.js';

let repo: GitDir;
let srv: TestServer;
let key: string;
let tmp: string;

beforeAll(async () => {
  repo = await makeRepo([{ message: 'init', files: { 'docs/a.md': '# A\n', 'src/x.ts': 'x\n' } }]);
  srv = await startTestServer({ openPerimeters: false });
  await srv.perimeter({ id: 'docs', repo: repo.dir, read: ['docs/**'], write: ['docs/**'] });
  key = (await srv.api('POST', '/api/perimeters/docs/keys')).json.key;
  tmp = await mkdtemp(join(tmpdir(), 'gb-stdio-'));
});

afterAll(async () => {
  await srv?.close();
  await repo?.cleanup();
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

/** A key file as an operator writes one: only its owner may read it. */
const keyFile = async (name: string, content: string) => {
  const f = join(tmp, name);
  await writeFile(f, content, { mode: 0o600 });
  return f;
};

const bridge = (extra: string[], env: Record<string, string>) =>
  new StdioClientTransport({
    command: process.execPath,
    args: ['--import', 'tsx', 'test/support/run-cli.ts', 'stdio', '--perimeter', 'docs', '--url', srv.url, ...extra],
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    stderr: 'pipe',
  });

describe('git-blinder stdio', () => {
  it('carries a full agent session: tools, reads, a hidden path as missing, a write, then ends the HTTP session', async () => {
    const client = new Client({ name: 'stdio-test', version: '1' });
    await client.connect(bridge([], { GIT_BLINDER_AGENT_KEY: key }));
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual([
      'get_tree',
      'get_file',
      'get_files',
      'search_code',
      'changes_since',
      'push_files',
      'edit_file',
      'edit_files',
      'list_commits',
      'get_commit',
      'activity',
      'lease_acquire',
      'lease_release',
    ]);
    const read = (await client.callTool({ name: 'get_file', arguments: { path: 'docs/a.md' } })) as any;
    expect(read.structuredContent.content).toBe('# A\n');
    const hidden = (await client.callTool({ name: 'get_file', arguments: { path: 'src/x.ts' } })) as any;
    expect(hidden.isError).toBe(true);
    expect(hidden.content[0].text).toMatch(/^Not found/);
    const pushed = (await client.callTool({
      name: 'push_files',
      arguments: { message: 'b', files: [{ path: 'docs/b.md', content: 'b\n' }] },
    })) as any;
    expect(pushed.structuredContent.branch).toBe('main');
    expect(await repo.git('show', 'main:docs/b.md')).toBe('b\n');
    expect(srv.app.sessions.size).toBe(1);
    await client.close(); // closes stdin: the bridge sends DELETE and exits
    for (let i = 0; i < 100 && srv.app.sessions.size > 0; i++) await new Promise((r) => setTimeout(r, 50));
    expect(srv.app.sessions.size).toBe(0);
  });

  it('reads the key from --key-file', async () => {
    const client = new Client({ name: 'stdio-test', version: '1' });
    await client.connect(bridge(['--key-file', await keyFile('right', `${key}\n`)], {}));
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('get_file');
    await client.close();
  });

  it('passes the daemon refusal through when the key is wrong', async () => {
    const client = new Client({ name: 'stdio-test', version: '1' });
    await expect(client.connect(bridge(['--key-file', await keyFile('wrong', 'gbk_wrong\n')], {}))).rejects.toThrow(
      /Not found|404/,
    );
    await client.close().catch(() => undefined);
  });
});
