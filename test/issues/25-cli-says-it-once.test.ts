// Issue 25, the minor items a new user met at the command line: a bad flag value printed its one-line error and then
// the whole 40-line `serve --help`; config errors came in two forms and said "(top level)" for a perimeter key;
// `perimeter create` without `--read` made a perimeter that reads nothing, silently; `proposal reject --reason ""`
// went to the server; `commits show` with a 3-character prefix asked the server for a commit named "abc" and had no
// way to show the diff; `worktree add` on a checked-out branch did not say where; `npm run emulator -- --repos ./x`
// resolved against the package root and died with a stack trace when the folder was missing.
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/cli/config.js';
import { createLocalWorkspace } from '../../src/workspace/localfs/index.js';
import { runBuiltCli } from '../support/built-cli.js';
import { makeRepo, type GitDir } from '../support/gitdir.js';
import { OPS_TOKEN, startTestServer, type TestServer } from '../support/server.js';

let repo: GitDir;
let srv: TestServer;
let tmp: string;

beforeAll(async () => {
  repo = await makeRepo([
    { message: 'init', files: { 'docs/a.md': 'hello\n', 'src/secret.ts': 'hidden\n' } },
    { message: 'both', files: { 'docs/a.md': 'hello\nworld\n', 'src/secret.ts': 'hidden, changed\n' } },
  ]);
  srv = await startTestServer({ workspace: createLocalWorkspace() });
  await srv.perimeter({ id: 'docs', repo: repo.dir, read: ['docs/**'], write: [] });
  tmp = await mkdtemp(join(tmpdir(), 'gb-i25-cli-'));
}, 60_000);

afterAll(async () => {
  await srv?.close();
  await repo?.cleanup();
  await rm(tmp, { recursive: true, force: true });
});

const ops = (args: string[]) => runBuiltCli([...args, '--url', srv.url], { env: { GIT_BLINDER_OPS_TOKEN: OPS_TOKEN } });

describe('usage errors', () => {
  it('a bad flag value: the one-line error, then a pointer to the help, not the help itself', async () => {
    const r = await runBuiltCli(['serve', '--port', '99999', '--state-dir', join(tmp, 'never')]);
    expect(r.code).toBe(2);
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toContain('--port must be a whole number from 0 to 65535');
    expect(lines[1]).toBe('see `git-blinder serve --help`');
    expect(r.stderr).not.toMatch(/Usage:|Options:/);
    const sub = await runBuiltCli(['perimeter', 'commits', 'list', 'docs', '--per-page', '1000']);
    expect(sub.code).toBe(2);
    expect(sub.stderr.trimEnd().split('\n').at(-1)).toBe('see `git-blinder perimeter commits list --help`');
  });

  it("proposal reject with an empty reason is a usage error in the CLI's words (exit 2), before any request", async () => {
    // The URL names no server: the refusal comes from the flag's own check.
    const r = await runBuiltCli(
      ['proposal', 'reject', 'p' + 'a'.repeat(24), '--reason', '', '--url', 'http://127.0.0.1:9'],
      { env: { GIT_BLINDER_OPS_TOKEN: 'x'.repeat(40) } },
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--reason is empty');
    expect(r.stderr).not.toMatch(/ECONNREFUSED|cannot reach|400/);
    const blank = await runBuiltCli(
      ['proposal', 'reject', 'p' + 'a'.repeat(24), '--reason', '   ', '--url', 'http://127.0.0.1:9'],
      { env: { GIT_BLINDER_OPS_TOKEN: 'x'.repeat(40) } },
    );
    expect(blank.code).toBe(2);
  });

  it('perimeter create without --read warns that the perimeter can read nothing', async () => {
    const r = await ops(['perimeter', 'create', 'blind', '--repo', repo.dir]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/warning: perimeter blind: read is empty, so the perimeter can read nothing/);
    const fine = await ops(['perimeter', 'create', 'sighted', '--repo', repo.dir, '--read', 'docs/**']);
    expect(fine.stderr).not.toContain('read is empty');
  });
});

describe('config errors: one form, the full key, the closest key', () => {
  const errors = (yaml: string) => parseConfig(yaml, '/c', '/h').errors;
  it('an unknown perimeter key is named by its path, with the key it was probably meant to be', () => {
    const e = errors('perimeters:\n  docs:\n    repo: a/b\n    reads: ["docs/**"]\n');
    expect(e).toEqual(['perimeters.docs.reads: unknown key; did you mean "read"?']);
    expect(e.join()).not.toContain('(top level)');
  });
  it('nested keys and top-level keys too; a key near nothing lists what is known there', () => {
    expect(errors('perimeters:\n  docs:\n    repo: a/b\n    limits: { calls_per_minut: 5 }\n')).toEqual([
      'perimeters.docs.limits.calls_per_minut: unknown key; did you mean "calls_per_minute"?',
    ]);
    expect(errors('perimeter:\n  docs:\n    repo: a/b\n')).toEqual([
      'perimeter: unknown key; did you mean "perimeters"?',
    ]);
    expect(errors('perimeters:\n  docs:\n    repo: a/b\n    colour: blue\n')[0]).toMatch(
      /^perimeters\.docs\.colour: unknown key \(known here: repo, tools, read, write, branches, /,
    );
    // Every other error keeps the same form: the path from the top of the file.
    expect(errors('perimeters:\n  docs:\n    repo: a/b\n    read: ["../etc/**"]\n')[0]).toMatch(
      /^perimeters\.docs\.read\.0: /,
    );
  });
  it('serve prints an upstream refusal of a config perimeter in the same form as a schema error', async () => {
    const config = join(tmp, 'missing-repo.yaml');
    await writeFile(
      config,
      `perimeters:\n  docs:\n    repo: ${join(tmp, 'no-such-repo')}\n    read: ["docs/**"]\n  other:\n    repo: ${repo.dir}\n    reads: ["docs/**"]\n`,
    );
    const schema = await runBuiltCli(['serve', '--port', '0', '--config', config, '--state-dir', join(tmp, 's1')], {
      env: { HOME: tmp },
    });
    expect(schema.code).toBe(1);
    expect(schema.stderr).toContain(
      `error: Invalid config:\n  ${config}: perimeters.other.reads: unknown key; did you mean "read"?`,
    );
    await writeFile(config, `perimeters:\n  docs:\n    repo: ${join(tmp, 'no-such-repo')}\n    read: ["docs/**"]\n`);
    const upstream = await runBuiltCli(['serve', '--port', '0', '--config', config, '--state-dir', join(tmp, 's2')], {
      env: { HOME: tmp },
    });
    expect(upstream.code).toBe(1);
    expect(upstream.stderr).toMatch(
      new RegExp(
        `error: Invalid config:\\n  ${config.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}: perimeters\\.docs\\.repo: `,
      ),
    );
  });
});

describe('perimeter commits show', () => {
  it('prefixes: at least 4 hex characters; shorter, non-hex and unmatched prefixes each get their own message', async () => {
    const head = await repo.head();
    const ok = await ops(['perimeter', 'commits', 'show', 'docs', head.slice(0, 4)]);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toContain(`commit ${head}`);
    const short = await ops(['perimeter', 'commits', 'show', 'docs', head.slice(0, 3)]);
    expect(short.code).toBe(2);
    expect(short.stderr).toContain(`${head.slice(0, 3)} is too short: at least 4 hex characters`);
    const word = await ops(['perimeter', 'commits', 'show', 'docs', 'main']);
    expect(word.code).toBe(2);
    expect(word.stderr).toContain('is not a commit SHA or prefix');
    const none = await ops(['perimeter', 'commits', 'show', 'docs', head.startsWith('0000') ? 'ffff' : '0000']);
    expect(none.code).toBe(1);
    expect(none.stderr).toContain('no visible commit starting with');
  });

  it('--patch prints the diff of each visible file, and nothing of a hidden one', async () => {
    const head = await repo.head();
    const r = await ops(['perimeter', 'commits', 'show', 'docs', head, '--patch']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^--- docs\/a\.md \(modified\)$/m);
    expect(r.stdout).toMatch(/^\+world$/m);
    expect(r.stdout).not.toMatch(/secret|hidden/);
    const without = await ops(['perimeter', 'commits', 'show', 'docs', head]);
    expect(without.stdout).not.toMatch(/^\+world$/m);
  });
});

describe('worktree add on a branch already checked out', () => {
  it('names the working tree where it is', async () => {
    const r = await ops(['worktree', 'add', 'docs', 'main', '--path', join(tmp, 'wt-main')]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      `Branch main is already checked out at ${await realpath(repo.dir)} (the main working tree)`,
    );
  });
});

describe('npm run emulator', () => {
  const ROOT = fileURLToPath(new URL('../..', import.meta.url));
  const TSX = join(ROOT, 'node_modules', '.bin', 'tsx');
  /** The emulator as `npm run emulator` runs it: cwd the package root, INIT_CWD where the caller was. */
  const emulator = (args: string[], callerDir: string, until?: string) =>
    new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
      const child = spawn(TSX, ['test/support/github-emulator/cli.ts', ...args], {
        cwd: ROOT,
        env: { ...process.env, INIT_CWD: callerDir },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => {
        stdout += d.toString();
        if (until && stdout.includes(until)) child.kill('SIGTERM');
      });
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
      child.once('error', reject);
      child.once('close', (code) => {
        clearTimeout(timer);
        resolve({ code, stdout, stderr });
      });
    });

  it("a missing --repos folder: one clean message naming the folder resolved from the caller's directory, exit 2", async () => {
    const r = await emulator(['--repos', './emulated', '--port', '0'], tmp);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`--repos ./emulated: no folder at ${join(tmp, 'emulated')}.`);
    expect(r.stderr).toContain('<dir>/<owner>/<name>.git');
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it("a relative --repos is the caller's folder: its <owner>/<name>.git repositories are served", async () => {
    await mkdir(join(tmp, 'emulated', 'acme'), { recursive: true });
    await repo.git('clone', '--bare', '--quiet', repo.dir, join(tmp, 'emulated', 'acme', 'docs.git'));
    const r = await emulator(['--repos', './emulated', '--port', '0'], tmp, 'serving');
    expect(r.stdout).toMatch(/serving 1 repositories: acme\/docs/);
  });
});
