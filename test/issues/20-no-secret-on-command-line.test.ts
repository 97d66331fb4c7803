// Issue 20 §5: `--ops-token`, `--token`, `--store postgres://user:pass@…` and `stdio --key` put secrets in
// /proc/<pid>/cmdline, which every local user reads (`ps`), and the README recommends running agents as another user.
// Secrets now come from the environment or a file only its owner can read; a secret given as a flag value is refused
// with the sentence that names both; a --store URL without a password stays allowed. Real built CLI, real processes.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { chmod, chown, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeRepo, type GitDir } from '../support/gitdir.js';
import {
  BIN,
  childEnv,
  runCli,
  snapshot,
  startServer,
  waitForText,
  type ServerProcess,
} from '../support/cli-process.js';

const OPS = 'ops-0123456789abcdef0123456789abcdef-issue20';
const SECRET = 'hunter2-0123456789abcdef0123456789abcdef';

let repo: GitDir;
let tmp: string;
let server: ServerProcess;
let agentKey: string;
const f: Record<string, string> = {};

const secretFile = async (name: string, content: string, mode = 0o600) => {
  const p = join(tmp, name);
  await writeFile(p, content);
  await chmod(p, mode);
  return p;
};
const cmdline = async (pid: number) => (await readFile(`/proc/${pid}/cmdline`, 'utf8')).split('\0').join(' ');
const env = (extra: Record<string, string> = {}) => childEnv({ HOME: tmp, ...extra });
const cli = (args: string[], extra: Record<string, string> = {}) => runCli(args, { cwd: repo.dir, env: env(extra) });

beforeAll(async () => {
  repo = await makeRepo([{ message: 'init', files: { 'docs/a.md': '# A\n' } }]);
  tmp = await mkdtemp(join(tmpdir(), 'gb-i20-argv-'));
  f.ops = await secretFile('ops-token', `${OPS}\n`);
  f.loose = await secretFile('loose-token', `${OPS}\n`, 0o644);
  f.group = await secretFile('group-token', `${OPS}\n`, 0o640);
  server = await startServer(['--state-dir', join(tmp, 'state'), '--ops-token-file', f.ops], {
    cwd: repo.dir,
    env: env(),
  });
  agentKey = /agent key for local .*(gbk_[A-Za-z0-9_-]+)/.exec(server.output().stdout)?.[1] ?? '';
  f.key = await secretFile('agent-key', `${agentKey}\n`);
}, 60_000);

afterAll(async () => {
  await server?.stop();
  await repo?.cleanup();
  await rm(tmp, { recursive: true, force: true });
});

describe('secrets stay off the command line', () => {
  it('serve reads the ops token from a 0600 file: /proc/<pid>/cmdline (world-readable) does not hold it', async () => {
    const pid = server.child.pid!;
    expect((await stat(`/proc/${pid}/cmdline`)).mode & 0o004).toBe(0o004); // why argv is the wrong place
    const line = await cmdline(pid);
    expect(line).toContain('--ops-token-file');
    expect(line).not.toContain(OPS);
    const health = await fetch(`${server.url}/api/health`, { headers: { authorization: `Bearer ${OPS}` } });
    expect(health.status).toBe(200);
    // The operator's commands take it from a file or the environment the same way.
    for (const r of [
      await cli(['status', '--url', server.url, '--token-file', f.ops!]),
      await cli(['status', '--url', server.url], { GIT_BLINDER_OPS_TOKEN: OPS }),
    ]) {
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain('git-blinder');
    }
  });

  it(
    'stdio reads the agent key from --key-file: its command line does not hold the key, and the bridge works',
    { timeout: 30_000 },
    async () => {
      expect(agentKey).toMatch(/^gbk_/);
      const child: ChildProcessWithoutNullStreams = spawn(
        process.execPath,
        [BIN, 'stdio', '--perimeter', 'local', '--url', server.url, '--key-file', f.key!],
        { env: env() },
      );
      let out = '';
      child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
      try {
        const init = {
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'i20', version: '1' } },
        };
        child.stdin.write(`${JSON.stringify(init)}\n`);
        await waitForText(() => out, '"serverInfo"', 20_000);
        const line = await cmdline(child.pid!);
        expect(line).toContain('--key-file');
        expect(line).not.toContain(agentKey);
      } finally {
        child.stdin.end();
        child.kill();
      }
    },
  );

  // [argv, the variable and the file flag the refusal must name]
  const FLAGS: [string[], string, string][] = [
    [['serve', '--ops-token', SECRET], 'GIT_BLINDER_OPS_TOKEN', '--ops-token-file'],
    [['serve', `--ops-token=${SECRET}`], 'GIT_BLINDER_OPS_TOKEN', '--ops-token-file'],
    [['serve', '--token', SECRET], 'GITHUB_TOKEN', '--token-file'],
    [['serve', '--store', `postgres://gb:${SECRET}@127.0.0.1:1/gitblinder`], 'GIT_BLINDER_STORE', '--store-file'],
    [
      ['serve', '--store', `postgres://gb@127.0.0.1:1/gitblinder?password=${SECRET}`],
      'GIT_BLINDER_STORE',
      '--store-file',
    ],
    [['status', '--token', SECRET], 'GIT_BLINDER_OPS_TOKEN', '--token-file'],
    [['proposal', 'list', '--token', SECRET], 'GIT_BLINDER_OPS_TOKEN', '--token-file'],
    [['stdio', '--perimeter', 'local', '--key', SECRET], 'GIT_BLINDER_AGENT_KEY', '--key-file'],
  ];
  it.each(FLAGS)(
    '%j is refused (exit 2) naming %s and %s, never echoing the secret, writing nothing',
    async (argv, variable, fileFlag) => {
      const state = join(tmp, `never-${argv[0]}`);
      const r = await cli([
        ...argv,
        ...(argv[0] === 'serve' ? ['--port', '0', '--state-dir', state] : ['--url', server.url]),
      ]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('process list');
      expect(r.stderr).toContain(variable);
      expect(r.stderr).toContain(fileFlag);
      expect(r.stderr + r.stdout).not.toContain('hunter2');
      expect(await snapshot(state)).toBeUndefined();
    },
  );

  it('a --store URL without a password stays allowed on the command line; one with a password comes from --store-file', async () => {
    const bare = await cli([
      'serve',
      '--port',
      '0',
      '--state-dir',
      join(tmp, 'store-a'),
      '--open-perimeters',
      '--store',
      'postgres://gb@127.0.0.1:1/gitblinder',
    ]);
    expect(bare.stderr).not.toContain('process list');
    expect(bare.stderr).toContain('postgres://127.0.0.1:1/gitblinder'); // accepted, then the database is not there
    expect(bare.code).toBe(1);
    const file = await secretFile('store-url', `postgres://gb:${SECRET}@127.0.0.1:1/gitblinder\n`);
    const fromFile = await cli([
      'serve',
      '--port',
      '0',
      '--state-dir',
      join(tmp, 'store-b'),
      '--open-perimeters',
      '--store-file',
      file,
    ]);
    expect(fromFile.stderr).toContain('postgres://127.0.0.1:1/gitblinder');
    expect(fromFile.stderr + fromFile.stdout).not.toContain('hunter2');
    expect(fromFile.code).toBe(1);
  });
});

describe('a secret file others can read is refused', () => {
  const CASES: [string, () => string[]][] = [
    [
      'serve --ops-token-file 0644',
      () => ['serve', '--port', '0', '--state-dir', join(tmp, 'loose-serve'), '--ops-token-file', f.loose!],
    ],
    [
      'serve --ops-token-file 0640',
      () => ['serve', '--port', '0', '--state-dir', join(tmp, 'loose-serve'), '--ops-token-file', f.group!],
    ],
    [
      'serve --token-file 0644',
      () => ['serve', '--port', '0', '--state-dir', join(tmp, 'loose-serve'), '--token-file', f.loose!],
    ],
    ['status --token-file 0644', () => ['status', '--url', server.url, '--token-file', f.loose!]],
    ['stdio --key-file 0644', () => ['stdio', '--perimeter', 'local', '--url', server.url, '--key-file', f.loose!]],
  ];
  it.each(CASES)('%s: exit 2, the message says chmod 600, nothing is written', async (_what, argv) => {
    const r = await cli(argv());
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/readable or writable by others \(mode 06[04][04]\); run: chmod 600 /);
    expect(r.stderr).not.toContain(OPS);
    expect(await snapshot(join(tmp, 'loose-serve'))).toBeUndefined();
  });

  it.runIf(process.getuid?.() === 0)(
    "a file owned by another user is refused even at 0600 (run as root: the file is given to 'nobody')",
    async () => {
      const theirs = await secretFile('theirs', `${OPS}\n`);
      await chown(theirs, 65534, 65534);
      const r = await cli([
        'serve',
        '--port',
        '0',
        '--state-dir',
        join(tmp, 'theirs-state'),
        '--ops-token-file',
        theirs,
      ]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('not to this user');
    },
  );
});

it('README and --help offer no secret as a flag value', async () => {
  const readme = await readFile(new URL('../../README.md', import.meta.url), 'utf8');
  expect(readme).not.toMatch(/--(ops-token|token|store|key)[ =]["']?\$/);
  expect(readme).not.toMatch(/--(ops-token|token|key) (t|k|<token>|<key>)\b/);
  for (const argv of [
    ['serve', '--help'],
    ['status', '--help'],
    ['stdio', '--help'],
  ]) {
    const help = (await cli(argv)).stdout;
    expect(help).toMatch(/--(ops-token|token|key)-file <file>/);
    expect(help).not.toMatch(/--(ops-token|token|key) </);
  }
});
