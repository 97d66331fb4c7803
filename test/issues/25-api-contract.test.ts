// Issue 25: four `/api` response schemas were written and unused, and the CLI cast the answers it read (22 times).
// Every answer now goes through its route's schema at both ends (src/http/api/schema.ts): the router builds bodies
// with it (reply.ts), the CLI's client parses with it. Here: every route of that table, driven on a real server
// through the CLI's own client; what an operator sees when an answer does not fit (the route named, exit 1); and a
// body the router builds is cut to its schema, so a field the contract does not name never leaves the server.
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openLedger } from '../../src/audit/index.js';
import { ledgerAuditReader } from '../../src/cli/audit-store.js';
import { apiClient } from '../../src/cli/client.js';
import { reply } from '../../src/http/api/reply.js';
import { API, type ApiBody, type ApiRoute } from '../../src/http/api/schema.js';
import { createLocalWorkspace } from '../../src/workspace/localfs/index.js';
import { serveBoth, type Served } from '../support/both-upstreams.js';
import { runBuiltCli } from '../support/built-cli.js';
import { makeRepo, type GitDir } from '../support/gitdir.js';
import { OPS_TOKEN, startTestServer, type TestServer } from '../support/server.js';

describe('every /api route answers what its schema says, read through the CLI client', () => {
  let repo: GitDir;
  let srv: TestServer;
  let github: Served;
  let scratch: string;
  let ledgerDir: string;

  beforeAll(async () => {
    repo = await makeRepo([{ message: 'init', files: { 'docs/a.md': 'a\n', 'app/x.ts': 'x\n' } }]);
    await repo.git('branch', 'side');
    await repo.git('branch', 'wt');
    // A real ledger with one entry behind GET /audit (the file store's reader: this instance's own ledger).
    ledgerDir = await mkdtemp(join(tmpdir(), 'gb-issue25-ledger-'));
    const ledger = await openLedger({ dir: join(ledgerDir, 'audit'), salt: Buffer.alloc(32, 7) });
    await ledger.append({
      surface: 'api',
      tool: 'GET /api/health',
      verdict: 'allow',
      result: '200',
      bytes: 1,
      durationMs: 1,
    });
    await ledger.close();
    srv = await startTestServer({
      workspace: createLocalWorkspace(),
      proposals: {},
      auditRead: ledgerAuditReader(() => join(ledgerDir, 'audit', 'audit.jsonl')),
    });
    await srv.perimeter({
      id: 'gated',
      repo: repo.dir,
      read: ['docs/**'],
      write: ['docs/**'],
      branches: ['main', 'side', 'wt'],
      approval: { push_files: 'required' },
    });
    // `/repos/:owner/:repo/branches` names a GitHub repository: the emulator over real git serves one.
    github = await serveBoth('github', [{ message: 'init', files: { 'docs/a.md': 'a\n' } }]);
    scratch = await mkdtemp(join(tmpdir(), 'gb-issue25-api-'));
  }, 60_000);

  afterAll(async () => {
    await srv?.close();
    await github?.close();
    await repo?.cleanup();
    if (scratch) await rm(scratch, { recursive: true, force: true });
    if (ledgerDir) await rm(ledgerDir, { recursive: true, force: true });
  });

  it('drives each route once; every answer parses with its schema', async () => {
    const seen = new Set<ApiRoute>();
    const local = apiClient(srv.url, OPS_TOKEN);
    const step = <R extends ApiRoute>(route: R, path: string, body?: unknown, client = local): Promise<ApiBody<R>> => {
      seen.add(route);
      return client.call(route, path, body);
    };

    const health = await step('GET /health', '/health');
    expect(health.perimeters.find((p) => p.id === 'gated')?.tools.side).toContain('push_files');
    expect((await step('GET /perimeters', '/perimeters')).perimeters.map((p) => p.id)).toEqual(['gated']);

    const made = await step('POST /perimeters', '/perimeters', { id: 'made', repo: repo.dir, read: ['docs/**'] });
    expect(made.perimeter).toMatchObject({ id: 'made', keys: [], origin: 'runtime' });
    expect((await step('GET /perimeters/:id', '/perimeters/made')).perimeter.read).toEqual(['docs/**']);
    expect((await step('GET /perimeters/:id/branches', '/perimeters/made/branches')).default_branch).toBe('main');
    expect(
      (await step('POST /perimeters/:id/branches', '/perimeters/made/branches', { name: 'side' })).perimeter.branches,
    ).toEqual(['main', 'side']);
    expect(
      (await step('DELETE /perimeters/:id/branches/*name', '/perimeters/made/branches/side')).perimeter.branches,
    ).toEqual(['main']);
    const key = await step('POST /perimeters/:id/keys', '/perimeters/made/keys');
    expect((await step('GET /perimeters/:id/keys', '/perimeters/made/keys')).keys.map((k) => k.id)).toEqual([key.id]);
    expect((await step('GET /perimeters/:id/agents', '/perimeters/made/agents')).agents.map((a) => a.agent)).toEqual([
      `key-${key.id}`,
    ]);
    expect(await step('DELETE /perimeters/:id/keys/:keyId', `/perimeters/made/keys/${key.id}`)).toEqual({
      revoked: key.id,
      agent: `key-${key.id}`,
    });
    expect(await step('DELETE /perimeters/:id', '/perimeters/made')).toEqual({ deleted: 'made' });

    const page = await step('GET /perimeters/:id/commits', '/perimeters/gated/commits');
    expect(page).toMatchObject({ perimeter: 'gated', branch: 'main', has_more: false });
    const sha = page.commits[0]?.sha ?? '';
    expect(
      (await step('GET /perimeters/:id/commits/:sha', `/perimeters/gated/commits/${sha}`)).files.map((f) => f.path),
    ).toEqual(['docs/a.md']);

    const tree = join(scratch, 'wt');
    expect(
      (await step('POST /perimeters/:id/worktrees', '/perimeters/gated/worktrees', { branch: 'wt', path: tree }))
        .worktree,
    ).toMatchObject({ branch: 'wt', workspace_tools: true });
    expect(
      (await step('GET /perimeters/:id/worktrees', '/perimeters/gated/worktrees')).worktrees.map((w) => w.branch),
    ).toContain('wt');

    expect((await step('GET /repos', '/repos')).repos.length).toBeGreaterThan(0);
    expect(
      (await step('GET /branches', `/branches?repo=${encodeURIComponent(repo.dir)}`)).branches.map((b) => b.name),
    ).toContain('side');
    const remote = await step(
      'GET /repos/:owner/:repo/branches',
      '/repos/acme/both/branches',
      undefined,
      apiClient(github.srv.url, OPS_TOKEN),
    );
    expect(remote).toMatchObject({ repo: 'acme/both', branches: [{ name: 'main' }] });

    // Two held pushes: one approved (it leaves a restore point), one rejected.
    const agent = await srv.connect('/mcp/gated/side');
    const ids: string[] = [];
    for (const content of ['one\n', 'two\n']) {
      const r = await agent.call('push_files', {
        message: 'change docs',
        files: [{ path: `docs/${content.trim()}.md`, content }],
      });
      expect(r.isError, r.text).toBeUndefined();
      ids.push(r.structured.proposal_id);
    }
    await agent.close();
    const [first, second] = ids as [string, string];
    expect((await step('GET /proposals', '/proposals')).proposals.map((p) => p.id).sort()).toEqual([...ids].sort());
    const shown = await step('GET /proposals/:id', `/proposals/${first}`);
    expect(
      (await step('POST /proposals/:id/approve', `/proposals/${first}/approve`, { hash: shown.proposal.hash })).proposal
        .status,
    ).toBe('applied');
    expect(
      (await step('POST /proposals/:id/reject', `/proposals/${second}/reject`, { reason: 'not now' })).proposal.status,
    ).toBe('rejected');
    expect((await step('GET /restore', '/restore')).restore_points.map((p) => p.id)).toContain(first);
    expect(await step('POST /restore/:id/apply', `/restore/${first}/apply`)).toMatchObject({
      id: first,
      branch: 'side',
    });

    const audit = await step('GET /audit', '/audit?limit=5');
    expect(audit).toMatchObject({ source: 'ledger', truncated: false, instances: [] });
    expect(audit.entries.map((e) => [e.instance, e.tool])).toEqual([['local', 'GET /api/health']]);

    // A route added to the table without a step here fails this line.
    expect([...seen].sort()).toEqual(Object.keys(API).sort());
  }, 60_000);

  it('a path that does not fit the route it claims is a bug in the caller, not a server answer', async () => {
    await expect(apiClient(srv.url, OPS_TOKEN).call('GET /perimeters/:id', '/perimeters')).rejects.toThrow(
      '/perimeters is not a path of GET /perimeters/:id',
    );
  });
});

describe('an answer that does not fit its schema, as an operator meets it', () => {
  let fake: Server;
  let url: string;

  beforeAll(async () => {
    // Another program on the port (or another version of the server): answers of the wrong shape.
    fake = createServer((req, res) => {
      const send = (status: number, body: unknown) =>
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      if (req.url === '/api/perimeters') return send(200, { perimeters: [{ id: 'docs', read: 'docs/**' }] });
      if (req.url === '/api/perimeters/docs')
        return send(404, { error: { code: 'not_found', message: 'No perimeter "docs".' } });
      return send(500, { oops: true });
    });
    fake.listen(0, '127.0.0.1');
    await once(fake, 'listening');
    const addr = fake.address();
    url = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
  });

  afterAll(async () => {
    fake?.close();
  });

  const cli = (...args: string[]) =>
    runBuiltCli([...args, '--url', url], { env: { GIT_BLINDER_OPS_TOKEN: 'any-ops-token-0123456789abcdef012345' } });

  it('names the route and what did not fit, prints nothing else, and exits 1', async () => {
    const r = await cli('perimeter', 'list');
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`Unexpected answer from ${url} to GET /api/perimeters (GET /perimeters)`);
    expect(r.stderr).toMatch(/perimeters\.0\.repo: .*; perimeters\.0\.read: /);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('an error body is read through its schema too: its message when it has one, the route and status when not', async () => {
    const missing = await cli('perimeter', 'show', 'docs');
    expect({ code: missing.code, stderr: missing.stderr.trim() }).toEqual({
      code: 1,
      stderr: 'error: No perimeter "docs".',
    });
    const broken = await cli('perimeter', 'key', 'list', 'docs');
    expect(broken.code).toBe(1);
    expect(broken.stderr).toContain('GET /api/perimeters/docs/keys: HTTP 500');
  });
});

describe('the router answers through the schema', () => {
  let server: Server;
  let base: string;

  beforeAll(async () => {
    const app = express();
    const perimeter = {
      id: 'p',
      repo: 'r',
      read: [],
      write: [],
      default_branch: 'main',
      branches: ['main'],
      keys: [],
      urls: [],
    };
    // The casts stand for a route that got its body wrong: the schema is what stops it at run time too.
    app.get('/extra', (_req, res) =>
      reply(res, 'GET /perimeters/:id', {
        perimeter: { ...perimeter, keys: [{ id: 'k', agent: 'a', created_at: 't', hash: 'secret' }] } as never,
      }),
    );
    app.get('/wrong', (_req, res) =>
      reply(res, 'GET /perimeters/:id', { perimeter: { ...perimeter, branches: 'main' } } as never),
    );
    app.use(
      (_err: unknown, _req: express.Request, res: express.Response, _next: express.NextFunction) =>
        void res.status(500).json({ error: { code: 'internal', message: 'Request failed.' } }),
    );
    server = app.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const addr = server.address();
    base = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
  });

  afterAll(() => {
    server?.close();
  });

  it('a field the contract does not name never leaves (a key hash, here)', async () => {
    const text = await (await fetch(`${base}/extra`)).text();
    expect(JSON.parse(text).perimeter.keys).toEqual([{ id: 'k', agent: 'a', created_at: 't' }]);
    expect(text).not.toContain('secret');
  });

  it('a body of the wrong shape is a broken invariant: a 500, never a wrong answer', async () => {
    const res = await fetch(`${base}/wrong`);
    expect(res.status).toBe(500);
    expect(await res.text()).not.toContain('"perimeter"');
  });
});
