// The spine end to end in-process: real repository, real HTTP server, real MCP clients of both protocol eras.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeRepo, type GitDir } from '../support/gitdir.js';
import { OPS_TOKEN, startTestServer, type TestServer } from '../support/server.js';

let repo: GitDir;
let srv: TestServer;
let mixedSha: string;
let pureSha: string;

beforeAll(async () => {
  repo = await makeRepo([
    {
      message: 'initial layout',
      files: {
        'README.md': '# platform\n',
        'infra/main.tf': 'terraform {}\n',
        'infra/aws/vpc.tf': 'resource "aws_vpc" "main" {}\n',
        'apps/landing/index.html': '<h1>hi</h1>\n',
        'secrets/prod.key': 'super-secret\n',
      },
    },
    {
      message: 'mixed: vpc and a secret',
      files: {
        'infra/aws/vpc.tf': 'resource "aws_vpc" "main" { cidr = "10.0.0.0/16" }\n',
        'secrets/prod.key': 'rotated\n',
      },
    },
    { message: 'pure: secrets only', files: { 'secrets/other.txt': 'nope\n' } },
    { message: 'feature work', branch: 'feat-aws', files: { 'infra/aws/subnet.tf': 'resource "aws_subnet" "a" {}\n' } },
  ]);
  // makeRepo leaves main checked out; the feature branch exists alongside it.
  const log = (await repo.git('log', '--format=%H %s', 'main')).trim().split('\n');
  mixedSha = log.find((l) => l.includes('mixed'))!.split(' ')[0]!;
  pureSha = log.find((l) => l.includes('pure'))!.split(' ')[0]!;
  srv = await startTestServer();
  await srv.perimeter({ id: 'infra', repo: repo.dir, read: ['infra/**'], write: ['infra/aws/**'] });
  await srv.perimeter({ id: 'landing', repo: repo.dir, read: ['apps/landing/**'], write: ['apps/landing/**'] });
});

afterAll(async () => {
  await srv?.close();
  await repo?.cleanup();
});

describe('binding by URL', () => {
  it('lists only agent tools on a perimeter, every tool on root (the workspace tools take repo and ref there)', async () => {
    const a = await srv.connect('/mcp/infra');
    const names = (await a.client.listTools()).tools.map((t) => t.name);
    expect(names).toEqual([
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
    const root = await srv.connect('/mcp/root', 'legacy', { authorization: `Bearer ${OPS_TOKEN}` });
    expect((await root.client.listTools()).tools).toHaveLength(20);
  });

  it('answers an unknown perimeter and a branch outside the allowlist with the same 404', async () => {
    const unknown = await fetch(`${srv.url}/mcp/nope`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    const branch = await fetch(`${srv.url}/mcp/infra/feat-aws`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(unknown.status).toBe(404);
    expect(branch.status).toBe(404);
    expect(await branch.text()).toBe(await unknown.text());
  });

  it('binds an allowlisted branch after the operator adds it, with / in names encoded or not', async () => {
    const added = await srv.api('POST', '/api/perimeters/infra/branches', { name: 'feat-aws' });
    expect(added.status).toBe(201);
    const a = await srv.connect('/mcp/infra/feat-aws');
    const tree = await a.call('get_tree', { path: 'infra/aws' });
    expect(tree.structured.entries.map((e: { path: string }) => e.path)).toContain('infra/aws/subnet.tf');
    const onMain = await srv.connect('/mcp/infra');
    const mainTree = await onMain.call('get_tree', { path: 'infra/aws' });
    expect(mainTree.structured.entries.map((e: { path: string }) => e.path)).not.toContain('infra/aws/subnet.tf');
  });

  it('refuses branch or repo pivots in tool arguments', async () => {
    const a = await srv.connect('/mcp/infra');
    const r = await a.call('get_file', { path: 'infra/main.tf', ref: 'feat-aws' });
    expect(r.isError).toBe(true);
    expect(r.text).toMatch(/ref/);
  });

  it('refuses a session id on another URL (404) and keeps it working on its own', async () => {
    const a = await srv.connect('/mcp/infra');
    const sid = a.transport.sessionId!;
    expect(sid).toBeTruthy();
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });
    const headers = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-session-id': sid,
      'mcp-protocol-version': '2025-11-25',
    };
    const hop = await fetch(`${srv.url}/mcp/landing`, { method: 'POST', headers, body });
    expect(hop.status).toBe(404);
    const home = await fetch(`${srv.url}/mcp/infra`, { method: 'POST', headers, body });
    expect(home.status).toBe(200);
  });

  it('serves 2026-07-28 clients statelessly with the same answers', async () => {
    const modern = await srv.connect('/mcp/infra', 'auto');
    expect(modern.client.getProtocolEra()).toBe('modern');
    expect(modern.transport.sessionId).toBeUndefined();
    const f = await modern.call('get_file', { path: 'infra/main.tf' });
    expect(f.structured.content).toBe('terraform {}\n');
  });
});

describe('absence, not refusal, for reads', () => {
  it('answers a hidden file exactly like a missing one', async () => {
    const a = await srv.connect('/mcp/infra');
    const hidden = await a.call('get_file', { path: 'secrets/prod.key' });
    const missing = await a.call('get_file', { path: 'secrets/nothing.key' });
    expect(hidden.isError).toBe(true);
    expect(hidden).toEqual({ ...missing, text: missing.text.replace('secrets/nothing.key', 'secrets/prod.key') });
    const hiddenDir = await a.call('get_tree', { path: 'secrets' });
    const missingDir = await a.call('get_tree', { path: 'secrez' });
    expect(hiddenDir.text.replace('secrets', 'X')).toBe(missingDir.text.replace('secrez', 'X'));
  });

  it('never lists what is outside read, and lists directories only with a readable file below', async () => {
    const a = await srv.connect('/mcp/infra');
    const root = await a.call('get_tree', {});
    expect(root.structured.entries.map((e: { path: string }) => e.path)).toEqual(['infra']);
    const all = await a.call('get_tree', { recursive: true });
    for (const e of all.structured.entries) expect(e.path.startsWith('infra')).toBe(true);
  });

  it('answers get_files per path, a hidden path like a missing one', async () => {
    const a = await srv.connect('/mcp/infra');
    const r = await a.call('get_files', { paths: ['infra/main.tf', 'secrets/prod.key', 'infra/none.tf'] });
    expect(r.structured.found).toBe(1);
    const [ok, hidden, missing] = r.structured.files;
    expect(ok.ok).toBe(true);
    expect(hidden.error.replace('secrets/prod.key', 'P')).toBe(missing.error.replace('infra/none.tf', 'P'));
  });
});

describe('filtered history', () => {
  it('lists only commits touching readable files', async () => {
    const a = await srv.connect('/mcp/infra');
    const r = await a.call('list_commits', {});
    const messages = r.structured.commits.map((c: { message: string }) => c.message.trim());
    expect(messages).toEqual(['mixed: vpc and a secret', 'initial layout']);
    expect(r.structured.commits[0].parents).toBeUndefined();
  });

  it('cuts a mixed commit to readable files with an opaque omitted_count', async () => {
    const a = await srv.connect('/mcp/infra');
    const r = await a.call('get_commit', { sha: mixedSha });
    expect(r.structured.files.map((f: { path: string }) => f.path)).toEqual(['infra/aws/vpc.tf']);
    expect(r.structured.omitted_count).toBe(1);
    expect(r.text).not.toContain('secrets');
  });

  it('answers a purely out-of-scope commit exactly like a nonexistent one', async () => {
    const a = await srv.connect('/mcp/infra');
    const pure = await a.call('get_commit', { sha: pureSha });
    const none = await a.call('get_commit', { sha: '0'.repeat(40) });
    expect(pure.isError).toBe(true);
    expect(pure.text.replace(pureSha, 'S')).toBe(none.text.replace('0'.repeat(40), 'S'));
  });

  it('gives the operator the same filtered history through /api', async () => {
    const r = await srv.api('GET', '/api/perimeters/infra/commits');
    expect(r.status).toBe(200);
    expect(r.json.commits.map((c: { message: string }) => c.message.trim())).toEqual([
      'mixed: vpc and a secret',
      'initial layout',
    ]);
    const pure = await srv.api('GET', `/api/perimeters/infra/commits/${pureSha}`);
    expect(pure.status).toBe(404);
  });
});

describe('writes', () => {
  it('refuses a write outside `write` as a whole and writes nothing', async () => {
    const before = await repo.head('main');
    const a = await srv.connect('/mcp/infra');
    const r = await a.call('push_files', {
      message: 'try',
      files: [
        { path: 'infra/aws/ok.tf', content: 'x' },
        { path: 'infra/main.tf', content: 'y' },
      ],
    });
    expect(r.isError).toBe(true);
    expect(r.text).toContain('infra/main.tf');
    expect(r.text).not.toContain('infra/aws/**');
    expect(await repo.head('main')).toBe(before);
  });

  it('lands an in-scope write as one commit on the bound branch', async () => {
    const a = await srv.connect('/mcp/infra/feat-aws');
    const before = await repo.head('feat-aws');
    const r = await a.call('push_files', {
      message: 'add nat',
      files: [{ path: 'infra/aws/nat.tf', content: 'nat\n' }],
    });
    expect(r.isError).toBeUndefined();
    expect(r.structured.branch).toBe('feat-aws');
    expect((await repo.git('rev-parse', `${r.structured.commit}^`)).trim()).toBe(before);
    expect(await repo.git('show', `feat-aws:infra/aws/nat.tf`)).toBe('nat\n');
    expect(srv.records.some((x) => x.tool === 'push_files' && x.commit === r.structured.commit)).toBe(true);
  });
});

describe('operator surfaces', () => {
  it('keeps POST /mcp at 405 and /api behind the Bearer', async () => {
    expect((await fetch(`${srv.url}/mcp`, { method: 'POST' })).status).toBe(405);
    expect((await srv.api('GET', '/api/perimeters', undefined, null)).status).toBe(401);
    expect((await srv.api('GET', '/api/perimeters', undefined, 'wrong')).status).toBe(401);
    expect((await srv.api('GET', '/api/perimeters')).status).toBe(200);
  });

  it('refuses the reserved id root and the default branch removal', async () => {
    const r = await srv.api('POST', '/api/perimeters', { id: 'root', repo: repo.dir, read: ['**'] });
    expect(r.status).toBe(400);
    expect(JSON.stringify(r.json)).toContain('reserved');
    const d = await srv.api('DELETE', '/api/perimeters/infra/branches/main');
    expect(d.status).toBe(409);
    const missing = await srv.api('POST', '/api/perimeters/infra/branches', { name: 'no-such-branch' });
    expect(missing.status).toBe(400);
    expect(missing.json.error.message).toMatch(/does not exist/);
  });

  it('takes a deleted perimeter away from its open sessions at their next call', async () => {
    await srv.perimeter({ id: 'temp', repo: repo.dir, read: ['README.md'] });
    const a = await srv.connect('/mcp/temp');
    expect((await a.call('get_file', { path: 'README.md' })).isError).toBeUndefined();
    expect((await srv.api('DELETE', '/api/perimeters/temp')).status).toBe(200);
    // The URL itself is gone: the open session's next request gets the unknown-perimeter 404.
    await expect(a.call('get_file', { path: 'README.md' })).rejects.toThrow(/"code":-32001,"message":"Not found"/);
  });

  it('reaps sessions that stay idle, and only those', async () => {
    const quick = await startTestServer({ sessionIdleMs: 500 });
    try {
      await quick.perimeter({ id: 'landing', repo: repo.dir, read: ['apps/landing/**'] });
      const a = await quick.connect('/mcp/landing');
      expect(quick.app.sessions.size).toBe(1);
      await a.client.close(); // closes the GET stream without DELETE, as most clients do
      // The server notices the closed stream asynchronously: poll briefly.
      expect(await quick.app.sessions.reap()).toBe(0); // not idle yet
      for (let i = 0; i < 100 && quick.app.sessions.size > 0; i++) {
        await new Promise((r) => setTimeout(r, 50));
        await quick.app.sessions.reap();
      }
      expect(quick.app.sessions.size).toBe(0);
    } finally {
      await quick.close();
    }
  });
});
