// Issue 10: `serve --log-level loud` exited 2 with no message at all, `--port 99999` and a bad `--audit-key` were
// found only after state had been written. Every serve flag and GIT_BLINDER_* / GitHub variable is now checked
// before anything is written: each bad value gets a message naming the flag (and the variable it came from), exit 2,
// and neither a used state dir nor a fresh one (nor ~/.git-blinder) is touched.
import { generateKeyPairSync } from 'node:crypto';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeRepo, type GitDir } from '../support/gitdir.js';
import { childEnv, runCli, snapshot, startServer } from '../support/cli-process.js';

let repo: GitDir;
let tmp: string;
let used: string;
let usedBefore: Record<string, string> | undefined;
const files: Record<string, string> = {};

beforeAll(async () => {
  repo = await makeRepo([{ message: 'init', files: { 'a.md': 'a\n' } }]);
  tmp = await mkdtemp(join(tmpdir(), 'gb-i10-flags-'));
  used = join(tmp, 'used');
  const s = await startServer(['--state-dir', used], { cwd: repo.dir, env: childEnv({ HOME: tmp }) });
  await s.stop();
  usedBefore = await snapshot(used);
  const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 });
  const ed = generateKeyPairSync('ed25519');
  files.rsa = join(tmp, 'rsa.pem');
  files.pub = join(tmp, 'ed-pub.pem');
  files.junk = join(tmp, 'junk.pem');
  await writeFile(files.rsa, rsa.privateKey.export({ type: 'pkcs8', format: 'pem' }));
  await writeFile(files.pub, ed.publicKey.export({ type: 'spki', format: 'pem' }));
  await writeFile(files.junk, 'not a key\n');
  // Secrets come from 0600 files or the environment (issue 20); a bad one is refused like a bad flag.
  files.newline = join(tmp, 'ops-newline');
  files.emptyToken = join(tmp, 'gh-empty');
  await writeFile(files.newline, 'abc\ndef\n');
  await writeFile(files.emptyToken, '\n');
  await chmod(files.newline, 0o600);
  await chmod(files.emptyToken, 0o600);
});

afterAll(async () => {
  await repo?.cleanup();
  await rm(tmp, { recursive: true, force: true });
});

// [what, extra argv, extra env, text the message must contain]
const BAD: [string, () => string[], Record<string, string>, string][] = [
  ['port out of range', () => ['--port', '99999'], {}, '--port must be a whole number from 0 to 65535'],
  ['port not a number', () => ['--port', '80a'], {}, '--port must be'],
  ['port fractional', () => ['--port', '1.5'], {}, '--port must be'],
  ['log level', () => ['--log-level', 'loud'], {}, '--log-level must be debug, info, warn or error'],
  ['log level from env', () => [], { GIT_BLINDER_LOG_LEVEL: 'loud' }, "from env 'GIT_BLINDER_LOG_LEVEL'"],
  ['audit key missing', () => ['--audit-key', join(tmp, 'nope.pem')], {}, '--audit-key:'],
  ['audit key not a key', () => ['--audit-key', files.junk!], {}, '--audit-key:'],
  ['audit key public', () => ['--audit-key', files.pub!], {}, '--audit-key:'],
  ['audit key RSA', () => ['--audit-key', files.rsa!], {}, 'not Ed25519'],
  ['session idle zero', () => ['--session-idle', '0'], {}, '--session-idle must be'],
  ['audit max bytes tiny', () => ['--audit-max-bytes', '10'], {}, '--audit-max-bytes must be'],
  ['audit keep not a number', () => ['--audit-keep', 'x'], {}, '--audit-keep must be'],
  ['github url', () => ['--github-url', 'not a url'], {}, '--github-url (GITHUB_API_URL) must be'],
  ['github url from env', () => [], { GITHUB_API_URL: 'ftp://example.test' }, "from env 'GITHUB_API_URL'"],
  ['ops token empty in env', () => [], { GIT_BLINDER_OPS_TOKEN: '' }, 'GIT_BLINDER_OPS_TOKEN is empty'],
  [
    'ops token file with a newline inside',
    () => ['--ops-token-file', files.newline!],
    {},
    'ops-newline contains whitespace',
  ],
  ['github token file empty', () => ['--token-file', files.emptyToken!], {}, '--token-file: '],
  ['github token with a space in env', () => [], { GITHUB_TOKEN: 'ghp_abc def' }, 'GITHUB_TOKEN contains whitespace'],
  ['ops token too short in env', () => [], { GIT_BLINDER_OPS_TOKEN: 'short-token' }, 'needs at least 32'],
  ['host empty', () => ['--host', ''], {}, '--host is empty'],
  ['host beyond loopback without --allowed-host', () => ['--host', '0.0.0.0'], {}, '--allowed-host'],
  [
    'open perimeters beyond loopback',
    () => ['--host', '0.0.0.0', '--allowed-host', 'h.example', '--open-perimeters'],
    {},
    '--open-perimeters is refused',
  ],
  ['allowed host empty', () => ['--allowed-host', ''], {}, '--allowed-host is empty'],
  ['private glob empty', () => ['--private', ' '], {}, '--private is empty'],
  ['config empty', () => ['--config', ''], {}, '--config is empty'],
  ['audit dir empty', () => ['--audit-dir', ''], {}, '--audit-dir is empty'],
];

describe.each(['used', 'fresh'] as const)('a bad serve value on a %s state dir', (kind) => {
  it.each(BAD)('%s: names the flag, exits 2, writes nothing', async (_what, argv, extra, message) => {
    const state = kind === 'used' ? used : join(tmp, 'fresh');
    const r = await runCli(['serve', '--port', '0', '--state-dir', state, ...argv()], {
      cwd: repo.dir,
      env: childEnv({ HOME: tmp, ...extra }),
    });
    expect(r.stderr).toContain(message);
    expect(r.code).toBe(2);
    expect(r.stdout).not.toMatch(/listening|gbk_/);
    expect(await snapshot(state)).toEqual(kind === 'used' ? usedBefore : undefined);
    expect(await snapshot(join(tmp, '.git-blinder'))).toBeUndefined();
  });
});

it('refuses an empty GIT_BLINDER_STATE_DIR instead of serving from the current directory', async () => {
  const r = await runCli(['serve', '--port', '0'], {
    cwd: repo.dir,
    env: childEnv({ HOME: tmp, GIT_BLINDER_STATE_DIR: '' }),
  });
  expect(r.stderr).toContain('GIT_BLINDER_STATE_DIR is set but empty');
  expect(r.code).toBe(2);
  expect(await snapshot(join(repo.dir, 'perimeters.json'))).toBeUndefined();
});
