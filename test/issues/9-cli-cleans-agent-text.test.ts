// Issue 9 item 10: text an agent controls (commit messages, file paths, client names) reached the operator's terminal
// with raw escape sequences in `perimeter commits list|show`. Every human output of the CLI now goes through one
// cleaning helper; `--json` stays the same JSON value. Driven through the built CLI against a real server, both upstreams.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openLedger } from '../../src/audit/index.js';
import { createGitHubUpstream, type GitHubUpstream } from '../../src/upstream/github/index.js';
import { runBuiltCli } from '../support/built-cli.js';
import { makeRepo, type GitDir } from '../support/gitdir.js';
import { startGitHubEmulator, type Emulator } from '../support/github-emulator/index.js';
import { OPS_TOKEN, startTestServer, type TestServer } from '../support/server.js';

const TOKEN = 'ghp_issue9CliCleaningToken0123456789abcdef';
// ESC sequences (colour, window title, cursor up + erase line), a C1 CSI, DEL, CR, and bidi override/isolate.
const HOSTILE_MESSAGE =
  'fix: ok\u001b[2K\u001b[1A\u001b]0;pwned\u0007\u009b31m\u007f\rallow \u202eexe.txt\u2066x\u2069';
const HOSTILE_PATH = 'docs/\u001b[31mred\u202egnp.md';
// Everything a terminal acts on: C0 but newline, DEL, C1, bidi controls and isolates.
// eslint-disable-next-line no-control-regex
const RAW = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/u;

let repo: GitDir;
let bare: GitDir;
let emulator: Emulator;
let github: GitHubUpstream;
const servers: Record<string, TestServer> = {};
let sha = '';

beforeAll(async () => {
  const commits = [
    { message: 'init', files: { 'docs/a.md': '# A\n' } },
    { message: HOSTILE_MESSAGE, files: { [HOSTILE_PATH]: 'x\n' } },
  ];
  repo = await makeRepo(commits);
  bare = await makeRepo(commits, { bare: true });
  sha = await repo.head();
  emulator = await startGitHubEmulator({ token: TOKEN, repos: { 'acme/docs': bare.dir } });
  github = createGitHubUpstream({ token: TOKEN, baseUrl: emulator.url, writeSpacingMs: 0, retryDelayMs: 5 });
  const up = github;
  servers.local = await startTestServer();
  await servers.local.perimeter({ id: 'docs', repo: repo.dir, read: ['docs/**'], write: [] });
  servers.github = await startTestServer({ upstream: up, upstreamFor: () => up });
  await servers.github.perimeter({ id: 'docs', repo: 'acme/docs', read: ['docs/**'], write: [] });
}, 60_000);

afterAll(async () => {
  for (const s of Object.values(servers)) await s.close();
  await github?.close();
  await emulator?.close();
  await repo?.cleanup();
  await bare?.cleanup();
});

const cli = (srv: TestServer, ...args: string[]) =>
  runBuiltCli([...args, '--url', srv.url], { env: { GIT_BLINDER_OPS_TOKEN: OPS_TOKEN } });

describe.each(['local', 'github'] as const)('%s upstream', (kind) => {
  it('commits list and show print no raw control or bidi character, and show them as visible escapes', async () => {
    const srv = servers[kind]!;
    const head = kind === 'local' ? sha : await bare.head();
    const list = await cli(srv, 'perimeter', 'commits', 'list', 'docs');
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).not.toMatch(RAW);
    expect(list.stdout).toContain('\\x1b[2K');
    expect(list.stdout).toContain('\\u{202e}');
    const show = await cli(srv, 'perimeter', 'commits', 'show', 'docs', head);
    expect(show.code, show.stderr).toBe(0);
    expect(show.stdout).not.toMatch(RAW);
    expect(show.stdout).toContain('\\x9b31m');
    expect(show.stdout).toContain('docs/\\x1b[31mred\\u{202e}gnp.md');
  });

  it('--json stays faithful: the same message once parsed, and no raw control byte on the wire', async () => {
    const srv = servers[kind]!;
    const head = kind === 'local' ? sha : await bare.head();
    const show = await cli(srv, 'perimeter', 'commits', 'show', 'docs', head, '--json');
    expect(show.code, show.stderr).toBe(0);
    expect(show.stdout).not.toMatch(RAW);
    const parsed = JSON.parse(show.stdout) as { message: string; files: { path: string }[] };
    expect(parsed.message.trimEnd()).toBe(HOSTILE_MESSAGE);
    expect(parsed.files.map((f) => f.path)).toEqual([HOSTILE_PATH]);
  });
});

it('audit tail cleans a self-reported client name that carries C1 and bidi characters', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'gb-audit-'));
  try {
    const ledger = await openLedger({ dir, salt: Buffer.alloc(32, 1) });
    await ledger.append({
      surface: 'agent',
      perimeter: 'docs',
      tool: 'get_file',
      client: 'claude\u009b2J\u202eevil\u001b[0m',
      verdict: 'allow',
      result: 'ok',
      bytes: 1,
      durationMs: 1,
      paths: [],
    });
    await ledger.close();
    const tail = await runBuiltCli(['audit', 'tail', '--file', join(dir, 'audit.jsonl')]);
    expect(tail.code, tail.stderr).toBe(0);
    expect(tail.stdout).not.toMatch(RAW);
    expect(tail.stdout).toContain('claude\\x9b2J\\u{202e}evil');
    const json = await runBuiltCli(['audit', 'tail', '--file', join(dir, 'audit.jsonl'), '--json']);
    expect(json.stdout).not.toMatch(RAW);
    expect((JSON.parse(json.stdout) as { client: string }).client).toBe('claude\u009b2J\u202eevil [0m');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
