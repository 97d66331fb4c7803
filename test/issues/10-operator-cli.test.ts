// Issue 10, "Operator CLI": what a new operator met with bad input on purpose. Every case runs the built CLI as a
// child process against a real server (in-process over real git, the GitHub emulator, or a real `serve`).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openLedger } from '../../src/audit/index.js';
import { createGitHubUpstream, type GitHubUpstream } from '../../src/upstream/github/index.js';
import { runBuiltCli } from '../support/built-cli.js';
import { makeRepo, type GitDir } from '../support/gitdir.js';
import { startGitHubEmulator, type Emulator } from '../support/github-emulator/index.js';
import { OPS_TOKEN, startTestServer, type TestServer } from '../support/server.js';

const TOKEN = 'ghp_issue10OperatorCliToken0123456789abcd';
let repo: GitDir;
let bare: GitDir;
let emulator: Emulator;
let github: GitHubUpstream;
const servers: Record<string, TestServer> = {};
const heads: Record<string, string> = {};
let scratch: string;

beforeAll(async () => {
  const commits = Array.from({ length: 3 }, (_, i) => ({ message: `c${i}`, files: { [`docs/f${i}.md`]: `${i}\n` } }));
  repo = await makeRepo(commits);
  bare = await makeRepo(commits, { bare: true });
  heads.local = await repo.head();
  heads.github = await bare.head();
  emulator = await startGitHubEmulator({ token: TOKEN, repos: { 'acme/docs': bare.dir } });
  github = createGitHubUpstream({ token: TOKEN, baseUrl: emulator.url, writeSpacingMs: 0, retryDelayMs: 5 });
  const up = github;
  servers.local = await startTestServer();
  await servers.local.perimeter({ id: 'docs', repo: repo.dir, read: ['docs/**'], write: [] });
  servers.github = await startTestServer({ upstream: up, upstreamFor: () => up });
  await servers.github.perimeter({ id: 'docs', repo: 'acme/docs', read: ['docs/**'], write: [] });
  scratch = await mkdtemp(join(tmpdir(), 'gb-issue10-'));
}, 60_000);

afterAll(async () => {
  for (const s of Object.values(servers)) await s.close();
  await github?.close();
  await emulator?.close();
  await repo?.cleanup();
  await bare?.cleanup();
  await rm(scratch, { recursive: true, force: true });
});

const cli = (srv: TestServer, args: string[], cwd?: string) =>
  runBuiltCli([...args, '--url', srv.url], { env: { GIT_BLINDER_OPS_TOKEN: OPS_TOKEN }, ...(cwd ? { cwd } : {}) });

describe.each(['local', 'github'] as const)('commits on the %s upstream', (kind) => {
  it('list prints full SHAs, and show accepts the SHA list printed as well as an unambiguous prefix', async () => {
    const srv = servers[kind]!;
    const list = await cli(srv, ['perimeter', 'commits', 'list', 'docs']);
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toContain(heads[kind]);
    const full = await cli(srv, ['perimeter', 'commits', 'show', 'docs', heads[kind]!]);
    expect(full.code, full.stderr).toBe(0);
    const short = await cli(srv, ['perimeter', 'commits', 'show', 'docs', heads[kind]!.slice(0, 12)]);
    expect(short.code, short.stderr).toBe(0);
    expect(short.stdout).toContain(`commit ${heads[kind]}`);
  });

  it('an unknown SHA is explained with the operator command, never an agent tool name', async () => {
    const srv = servers[kind]!;
    const unknown = await cli(srv, ['perimeter', 'commits', 'show', 'docs', 'f'.repeat(40)]);
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).not.toMatch(/list_commits|get_tree|get_commit/);
    expect(unknown.stderr).toContain('git-blinder perimeter commits list docs');
    const prefix = await cli(srv, ['perimeter', 'commits', 'show', 'docs', 'ffffffffffff']);
    expect(prefix.code).not.toBe(0);
    expect(prefix.stderr).toMatch(/no visible commit starting with ffffffffffff/);
  });

  it('range errors name the flag, not the schema', async () => {
    const r = await cli(servers[kind]!, ['perimeter', 'commits', 'list', 'docs', '--per-page', '1000']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--per-page must be 1–100');
    expect(r.stderr).not.toMatch(/Too big|expected number/);
  });
});

describe('perimeter create', () => {
  it('resolves --repo ./name and --repo . against the current directory', async () => {
    const srv = servers.local!;
    const rel = await cli(
      srv,
      ['perimeter', 'create', 'rel', '--repo', `./${basename(repo.dir)}`, '--read', 'docs/**'],
      dirname(repo.dir),
    );
    expect(rel.code, rel.stderr).toBe(0);
    // (Aligned to the longest label of the view, which grew with issue 25's policy lines.)
    expect(rel.stdout).toMatch(new RegExp(`^repo: +${repo.dir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`, 'm'));
    const dot = await cli(srv, ['perimeter', 'create', 'dot', '--repo', '.', '--read', 'docs/**'], repo.dir);
    expect(dot.code, dot.stderr).toBe(0);
    const branches = await cli(srv, ['branches', 'list', '--repo', '.'], repo.dir);
    expect(branches.code, branches.stderr).toBe(0);
    expect(branches.stdout).toContain('main');
  });

  it('warns, without refusing, on a glob that matches nothing meant, a blind write and a tool agents never get', async () => {
    const srv = servers.local!;
    const r = await cli(srv, [
      'perimeter',
      'create',
      'odd',
      '--repo',
      repo.dir,
      '--read',
      'docs/[',
      '--read',
      'docs/**',
      '--write',
      'src/**',
      '--tools',
      'get_file,compare',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/warning: perimeter odd: read glob "docs\/\[" has an unclosed "\["/);
    expect(r.stderr).toMatch(/warning: perimeter odd: write "src\/\*\*" reaches outside read: .*blind write/);
    expect(r.stderr).toMatch(/warning: perimeter odd: tool "compare" is never served to agents/);
    const quiet = await cli(srv, [
      'perimeter',
      'create',
      'fine',
      '--repo',
      repo.dir,
      '--read',
      'docs/**',
      '--write',
      'docs/*.md',
    ]);
    expect(quiet.code, quiet.stderr).toBe(0);
    expect(quiet.stderr).not.toContain('warning');
  });
});

describe('connection and token messages', () => {
  it('--url without a scheme is an invalid URL (exit 2)', async () => {
    const r = await runBuiltCli(['status', '--url', 'localhost:7400'], { env: { GIT_BLINDER_OPS_TOKEN: 'x' } });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('invalid URL: localhost:7400');
  });

  it('no ops token anywhere: says that the GitHub token is the ops token and this shell has none', async () => {
    const empty = join(scratch, 'empty-state');
    await mkdir(empty, { recursive: true });
    const r = await runBuiltCli(['status', '--url', servers.local!.url, '--state-dir', empty]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/No ops token in this shell/);
    expect(r.stderr).toMatch(/uses that token as its ops token/);
    expect(r.stderr).toContain('GITHUB_TOKEN');
  });
});

describe('audit files', () => {
  it('verify of a missing file exits 2 (usage), not 3 (tampering); tail of a missing --file is an error', async () => {
    const v = await runBuiltCli(['audit', 'verify', '/nope/audit.jsonl']);
    expect(v.code).toBe(2);
    expect(v.stderr).toContain('no audit ledger at /nope/audit.jsonl');
    const t = await runBuiltCli(['audit', 'tail', '--file', '/nope']);
    expect(t.code).toBe(2);
    expect(t.stderr).toContain('no audit ledger at /nope');
    expect(t.stdout).toBe('');
  });

  it('verify finds the ledger of the state dir by default, like tail', async () => {
    const state = join(scratch, 'state-with-ledger');
    const ledger = await openLedger({ dir: join(state, 'audit'), salt: Buffer.alloc(32, 2) });
    await ledger.append({
      surface: 'agent',
      perimeter: 'docs',
      tool: 'get_file',
      verdict: 'allow',
      result: 'ok',
      bytes: 1,
      durationMs: 1,
      paths: [],
    });
    await ledger.close();
    const byFlag = await runBuiltCli(['audit', 'verify', '--state-dir', state]);
    expect(byFlag.code, byFlag.stdout + byFlag.stderr).toBe(0);
    expect(byFlag.stdout).toContain('audit ledger verified');
    const byEnv = await runBuiltCli(['audit', 'verify'], { env: { GIT_BLINDER_STATE_DIR: state } });
    expect(byEnv.code).toBe(0);
  });
});

describe('status of a real serve', () => {
  let child: ChildProcess | undefined;
  afterAll(() => {
    child?.kill('SIGTERM');
  });

  it('prints the audit state as a table row and sessions as active/idle, not raw JSON', async () => {
    const state = join(scratch, 'serve-state');
    const bin = fileURLToPath(new URL('../../bin/git-blinder', import.meta.url));
    child = spawn(process.execPath, [bin, 'serve', '--port', '0', '--state-dir', state], {
      cwd: repo.dir,
      env: { PATH: process.env.PATH ?? '', HOME: scratch },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`serve did not start: ${out}`)), 30_000);
      child!.stdout!.on('data', (d: Buffer) => {
        out += d.toString();
        const m = /listening on (http:\/\/\S+)/.exec(out);
        if (m?.[1]) {
          clearTimeout(timer);
          resolve(m[1]);
        }
      });
    });
    const r = await runBuiltCli(['status', '--url', url, '--state-dir', state]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).not.toMatch(/audit: \{/);
    expect(r.stdout).toMatch(/^AUDIT\s+ENTRIES\s+LOST\s+FAILURES\s+SIGNED\s+PATHS\s+FILE/m);
    expect(r.stdout).toMatch(/^ok\s+\d+\s+0\s+0\s+no\s+hashed\s+\S+audit\.jsonl/m);
    expect(r.stdout).toMatch(/sessions: 0 active, 0 idle/);
  }, 60_000);
});

describe('session activity in status', () => {
  it('a session with no request for a minute and no open stream counts as idle', async () => {
    const { SessionTable } = await import('../../src/http/sessions.js');
    let now = 0;
    const table = new SessionTable({ idleMs: 30 * 60_000, limits: { max: 10 }, now: () => now });
    // activity() reads only the table's own fields; the transport and server are never touched here.
    const stub = { close: async () => undefined } as never;
    table.add({ id: 'a', key: 'k', perimeter: 'docs', owner: 'key:docs:k', transport: stub, server: stub });
    table.add({ id: 'b', key: 'k', perimeter: 'docs', owner: 'key:docs:k', transport: stub, server: stub });
    expect(table.activity(60_000)).toEqual({ active: 2, idle: 0 });
    now = 61_000;
    table.lookup('a', 'k', 'key:docs:k');
    expect(table.activity(60_000)).toEqual({ active: 1, idle: 1 });
    await table.closeAll();
  });
});
