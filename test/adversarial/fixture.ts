// The adversarial fixture: one repository full of hidden things (each carrying a CANARY_* marker), served through
// the real server over either upstream (local git on a bare clone, or the GitHub adapter talking to the emulator).
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { expect } from 'vitest';
import { randomBytes } from 'node:crypto';
import { cursorSeal, DEFAULT_LIMITS, Gate, RateLimiter } from '../../src/mcp/index.js';
import { createGitHubUpstream, type GitHubUpstream } from '../../src/upstream/github/index.js';
import { createLocalGitUpstream } from '../../src/upstream/localgit/index.js';
import { createLocalWorkspace } from '../../src/workspace/localfs/index.js';
import { gitIn, makeRepo } from '../support/gitdir.js';
import { startGitHubEmulator, type Emulator } from '../support/github-emulator/index.js';
import { startTestServer, type TestServer } from '../support/server.js';
import type { ProposalService } from '../../src/registry/proposals.js';
import type { Proposal } from '../../src/core/index.js';

export const GITHUB_TOKEN = 'ghp_AdversarialEmulatorToken0123456789ab';

/** The perimeters every attack runs against. */
export const APP_READ = ['app/**', 'docs/*.md'];
export const APP_WRITE = ['app/**', 'drop/**', '.github/**', 'CODEOWNERS', '.gitmodules'];

// Renames need similar content on both sides for git to pair them.
const BODY = Array.from({ length: 30 }, (_, i) => `export const line${i} = ${i};`).join('\n') + '\n';

export interface Shas {
  init: string;
  hiddenOnly: string;
  privateOnly: string;
  mixed: string;
  renameOut: string;
  renameIn: string;
  branchOnly: string;
  featureOk: string;
  submodule: string;
}

export interface Fixture {
  readonly kind: 'local' | 'github';
  readonly srv: TestServer;
  /** Repository name as perimeters see it (a path for local, owner/name on GitHub). */
  readonly repo: string;
  /** The bare repository the upstream serves (for checking branch heads after refused writes). */
  readonly bare: string;
  readonly shas: Shas;
  /** `ws` is perimeter ws (APP_READ, read-only) on branch `ws`, checked out in a dirty linked worktree of the bare repository. */
  readonly keys: { app: string; narrow: string; other: string; ws: string; dr: string; revoked: string };
  /** The server's cursor and result-id sealer (attacks mint ids the server could have made, to mirror get_file). */
  readonly seal: ReturnType<typeof cursorSeal>;
  /** The proposal service behind /ui and the approval-mode tools. */
  readonly proposals: ProposalService;
  /** A pending proposal of perimeter `app` with a hostile file name, content and reason. */
  propose(): Promise<Proposal>;
  head(branch?: string): Promise<string>;
  /** Every branch head, as one string (one git call). */
  heads(): Promise<string>;
  /** Paths on a branch, from git itself. */
  lsTree(branch?: string): Promise<string[]>;
  close(): Promise<void>;
}

/** Builds the repository once (source work tree), returns its directory and the named commits. */
async function buildSource(): Promise<{ dir: string; shas: Shas; cleanup: () => Promise<void> }> {
  const src = await makeRepo([
    {
      message: 'initial layout',
      files: {
        'app/main.ts': 'export const main = 1;\n',
        'app/lib/util.ts': 'export const util = 2;\n',
        'app/moved.ts': BODY,
        'app/.env': 'DB_PASSWORD=CANARY_ENV_FILE\n',
        'app/.ENV': 'CANARY_ENV_UPPER\n',
        'app/.env.': 'CANARY_ENV_TRAILING_DOT\n',
        'app/.env.example': 'DB_PASSWORD=\n',
        'app/id_rsa': 'CANARY_ID_RSA\n',
        'app/ID_RSA.pub': 'CANARY_ID_RSA_PUB\n',
        'app/certs/server.pem': 'CANARY_PEM\n',
        'app/config/credentials.json': '{"k":"CANARY_CREDENTIALS"}\n',
        // Issue 19: SPEC §4.7 promised `credentials*`, `.aws/` and `*.sqlite*`; these three were served.
        'app/config/credentials.csv': 'AKIA,CANARY_CREDENTIALS_CSV\n',
        'app/.aws/sso/cache/token.json': '{"accessToken":"CANARY_AWS_SSO"}\n',
        'app/data/app.sqlite.bak': 'CANARY_SQLITE_BACKUP\n',
        'app/link-out': { symlink: '../secret/keys.txt' },
        'app/link-abs': { symlink: '/etc/passwd' },
        'app/link-up': { symlink: '../../../../../../etc/hostname' },
        'app/link-dir': { symlink: '../secret' },
        'app/link-env': { symlink: '.env' },
        'app/link-ok': { symlink: 'lib/util.ts' },
        'app/link-doc': { symlink: '../docs/guide.md' },
        'app/link-chain': { symlink: 'link-out' },
        'app/links/only-bad': { symlink: '../../secret/keys.txt' },
        'docs/guide.md': '# guide\n',
        'docs/internal/plan.md': 'CANARY_DOCS_NESTED\n',
        // Lines PCRE gives up on for `^(\w+\s?)*$` (match limit): a hidden one must never decide a search's answer.
        'app/deploy.env': `CANARY_BOMB_ENV_${'a'.repeat(22)}!\n`,
        'docs/internal/bomb.txt': `CANARY_BOMB_DOCS_${'a'.repeat(22)}!\n`,
        'docs/notes.txt': 'CANARY_DOCS_TXT\n',
        'secret/keys.txt': 'CANARY_SECRET_KEYS\n',
        'secret/CANARY_PATH_origin.ts': BODY.replace('line0', 'lineZero'),
        'app2/leak.ts': 'CANARY_APP2\n',
        'app.bak/main.ts': 'CANARY_APP_BAK\n',
        'app-old/main.ts': 'CANARY_APP_OLD\n',
        'App/main.ts': 'CANARY_APP_CASE\n',
        'APP/main.ts': 'CANARY_APP_UPPER\n',
        '\uff41\uff50\uff50/main.ts': 'CANARY_FULLWIDTH\n',
        '\u0430pp/main.ts': 'CANARY_CYRILLIC\n',
        'app\u0307/main.ts': 'CANARY_COMBINING\n',
        'app /main.ts': 'CANARY_TRAILING_SPACE\n',
        'drop/existing.txt': 'CANARY_DROP_EXISTING\n',
        '.github/workflows/ci.yml': 'on: push # CANARY_WORKFLOW\n',
        CODEOWNERS: '* @CANARY_OWNER\n',
        'README.md': '# CANARY_README\n',
      },
    },
    { message: 'rotate CANARY_MSG_HIDDEN_ONLY', files: { 'secret/keys.txt': 'CANARY_SECRET_KEYS rotated\n' } },
    { message: 'touch CANARY_MSG_PRIVATE_ONLY', files: { 'app/.env': 'DB_PASSWORD=CANARY_ENV_FILE_2\n' } },
    {
      message: 'mixed update',
      files: { 'app/main.ts': 'export const main = 2;\n', 'secret/keys.txt': 'CANARY_SECRET_KEYS mixed\n' },
    },
    { message: 'rename out', files: { 'app/moved.ts': null, 'secret/CANARY_PATH_moved.ts': BODY } },
    {
      message: 'rename in',
      files: { 'secret/CANARY_PATH_origin.ts': null, 'app/arrived.ts': BODY.replace('line0', 'lineZero') },
    },
    {
      message: 'CANARY_MSG_BRANCH_ONLY',
      branch: 'feature-hidden',
      files: { 'app/branch-only.ts': 'CANARY_BRANCH_FILE\n' },
    },
    { message: 'feature ok', branch: 'feature/ok', files: { 'app/feature.ts': 'export const feature = true;\n' } },
  ]);
  const log = async (ref: string) => (await src.git('log', '--format=%H %s', ref)).trim().split('\n');
  const main = await log('main');
  const find = (lines: string[], msg: string) => lines.find((l) => l.endsWith(` ${msg}`))?.split(' ')[0] ?? '';
  // A submodule gitlink inside the readable tree, with its URL (a marker) in the hidden root .gitmodules.
  await src.git('checkout', '-q', 'main');
  await gitIn(src.dir, [
    'update-index',
    '--add',
    '--cacheinfo',
    `160000,${find(main, 'initial layout')},app/vendor/lib`,
  ]);
  await gitIn(src.dir, ['config', '-f', '.gitmodules', 'submodule.lib.path', 'app/vendor/lib']);
  await gitIn(src.dir, [
    'config',
    '-f',
    '.gitmodules',
    'submodule.lib.url',
    'https://CANARY_SUBMODULE_URL.example/lib.git',
  ]);
  await gitIn(src.dir, ['add', '.gitmodules']);
  await gitIn(src.dir, ['commit', '-q', '-m', 'vendor lib'], {
    GIT_AUTHOR_DATE: '2026-02-01T00:00:00Z',
    GIT_COMMITTER_DATE: '2026-02-01T00:00:00Z',
  });
  const after = await log('main');
  const shas: Shas = {
    init: find(main, 'initial layout'),
    hiddenOnly: find(main, 'rotate CANARY_MSG_HIDDEN_ONLY'),
    privateOnly: find(main, 'touch CANARY_MSG_PRIVATE_ONLY'),
    mixed: find(main, 'mixed update'),
    renameOut: find(main, 'rename out'),
    renameIn: find(main, 'rename in'),
    branchOnly: find(await log('feature-hidden'), 'CANARY_MSG_BRANCH_ONLY'),
    featureOk: find(await log('feature/ok'), 'feature ok'),
    submodule: find(after, 'vendor lib'),
  };
  for (const [k, v] of Object.entries(shas))
    if (!/^[0-9a-f]{40}$/.test(v)) throw new Error(`fixture commit ${k} missing`);
  return { dir: src.dir, shas, cleanup: src.cleanup };
}

/**
 * Branch `ws` checked out in a linked worktree of the bare repository, dirty inside and outside the window: a readable
 * file modified, a hidden file modified and staged, untracked hidden files (with canaries), a readable file renamed
 * to a hidden path.
 */
async function dirtyWorktree(bare: string): Promise<void> {
  const tree = join(dirname(bare), 'ws-tree');
  await gitIn(bare, ['branch', 'ws', 'main']);
  await gitIn(bare, ['worktree', 'add', '-q', tree, 'ws']);
  await writeFile(join(tree, 'app/main.ts'), 'export const main = 3; // on disk\n');
  await writeFile(join(tree, 'secret/keys.txt'), 'CANARY_WS_STAGED_SECRET\n');
  await gitIn(tree, ['add', 'secret/keys.txt']);
  await writeFile(join(tree, 'app/.env'), 'CANARY_WS_ENV=1\n');
  await writeFile(join(tree, 'secret/new.txt'), 'CANARY_WS_UNTRACKED\n');
  await gitIn(tree, ['mv', 'app/lib/util.ts', 'secret/util.ts']);
}

/** A bare clone with every branch as a local head. */
async function bareClone(source: string): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const root = await mkdtemp(join(tmpdir(), 'gb-adv-'));
  const dir = join(root, 'repo.git');
  await gitIn(root, ['clone', '-q', '--bare', '--no-local', source, dir]);
  for (const line of (
    await gitIn(source, ['for-each-ref', '--format=%(refname:short) %(objectname)', 'refs/heads'])
  ).split('\n')) {
    const [name, sha] = line.split(' ');
    if (name && sha) await gitIn(dir, ['update-ref', `refs/heads/${name}`, sha]);
  }
  for (const [k, v] of [
    ['gc.auto', '0'],
    ['user.name', 'x'],
    ['user.email', 'x@example.test'],
  ] as const)
    await gitIn(dir, ['config', k, v]);
  return { dir, cleanup: () => rm(root, { recursive: true, force: true }) };
}

// The suite opens far more sessions with app's key than one agent would, and keeps ctx.app open throughout: a key
// at its cap loses its least recently used session, so the cap here is above what the suite itself opens.
const HARNESS_SESSIONS = { perKey: 160 };
// The attacks send hundreds of wrong ops tokens from 127.0.0.1 on purpose, and the legitimate uses that follow sign in
// from the same address: the per-source back-off (issue 20, tested in test/issues/20-ops-token-checks-audited and
// test/http/ops-gate) would answer them 429. Here every wrong token is still checked and refused, never waited on.
const GUESSING_ALLOWED = { freeFailures: Number.MAX_SAFE_INTEGER };

/** Starts the server over one upstream with the adversarial perimeters and keys. */
let sharedSource: ReturnType<typeof buildSource> | undefined;
let users = 0;

export async function startFixture(kind: 'local' | 'github'): Promise<Fixture> {
  // One source repository per test file; each upstream gets its own bare clone (writes land there).
  sharedSource ??= buildSource();
  users += 1;
  const source = await sharedSource;
  const bare = await bareClone(source.dir);
  await dirtyWorktree(bare.dir);
  let emulator: Emulator | undefined;
  let github: GitHubUpstream | undefined;
  let repo = bare.dir;
  let srv: TestServer;
  const seal = cursorSeal(randomBytes(32));
  if (kind === 'github') {
    emulator = await startGitHubEmulator({ token: GITHUB_TOKEN, repos: { 'acme/blind': bare.dir } });
    github = createGitHubUpstream({
      token: GITHUB_TOKEN,
      baseUrl: emulator.url,
      writeSpacingMs: 0,
      retryDelayMs: 5,
      maxRetries: 1,
      maxRateLimitWaitSeconds: 1,
    });
    const up = github;
    repo = 'acme/blind';
    srv = await startTestServer({
      openPerimeters: false,
      opsBackoff: GUESSING_ALLOWED,
      sessionLimits: HARNESS_SESSIONS,
      limiter: new RateLimiter(),
      gate: new Gate(),
      policy: { defaultLimits: DEFAULT_LIMITS },
      proposals: {},
      cursors: seal,
      upstream: up,
      upstreamFor: (r) => (r === 'acme/blind' ? up : undefined),
      workspace: createLocalWorkspace(),
    });
  } else {
    const local = createLocalGitUpstream();
    srv = await startTestServer({
      openPerimeters: false,
      opsBackoff: GUESSING_ALLOWED,
      sessionLimits: HARNESS_SESSIONS,
      limiter: new RateLimiter(),
      gate: new Gate(),
      policy: { defaultLimits: DEFAULT_LIMITS },
      proposals: {},
      cursors: seal,
      upstream: local,
      workspace: createLocalWorkspace(),
    });
  }
  await srv.perimeter({ id: 'app', repo, read: APP_READ, write: APP_WRITE, branches: ['feature/ok'] });
  await srv.perimeter({ id: 'narrow', repo, read: ['app/**'], write: [], tools: ['get_file'] });
  await srv.perimeter({ id: 'other', repo, read: ['secret/**'], write: ['secret/**'] });
  await srv.perimeter({ id: 'ws', repo, read: APP_READ, write: [], branches: ['ws'] });
  // The ChatGPT connector aliases (issue 26): app's window, with search and fetch named.
  await srv.perimeter({
    id: 'dr',
    repo,
    read: APP_READ,
    write: [],
    branches: ['feature/ok'],
    tools: ['search', 'fetch', 'get_file', 'search_code', 'changes_since'],
  });
  const issue = async (id: string): Promise<string> => {
    const r = await srv.api('POST', `/api/perimeters/${id}/keys`);
    expect(r.status).toBe(201);
    return r.json.key as string;
  };
  const keys = {
    app: await issue('app'),
    narrow: await issue('narrow'),
    other: await issue('other'),
    ws: await issue('ws'),
    dr: await issue('dr'),
    revoked: '',
  };
  const rev = await srv.api('POST', '/api/perimeters/app/keys');
  keys.revoked = rev.json.key;
  expect((await srv.api('DELETE', `/api/perimeters/app/keys/${rev.json.id}`)).status).toBe(200);

  const proposals = srv.proposals;
  if (!proposals) throw new Error('the fixture server keeps no proposals');
  return {
    kind,
    srv,
    repo,
    bare: bare.dir,
    shas: source.shas,
    keys,
    seal,
    proposals,
    async propose() {
      const change = {
        kind: 'push_files' as const,
        message: 'docs </div><script>alert(1)</script>',
        files: [
          {
            path: 'app/<script>alert(1)</script>\u202Egpj.exe',
            content: '<img src=x onerror=alert(1)>\n',
            encoding: 'utf-8' as const,
          },
        ],
        deletes: [],
      };
      const made = await proposals.create({
        perimeter: 'app',
        repo,
        branch: 'main',
        base: (await gitIn(bare.dir, ['rev-parse', 'refs/heads/main'])).trim(),
        agent: '<b>agent</b>',
        change,
        facts: { paths: change.files.map((f) => f.path), protected_paths: [] },
        agentReason: '<script>alert(2)</script> trust me',
      });
      if (!made.ok) throw new Error(made.message);
      return made.value;
    },
    head: async (branch = 'main') => (await gitIn(bare.dir, ['rev-parse', `refs/heads/${branch}`])).trim(),
    heads: () => gitIn(bare.dir, ['for-each-ref', '--format=%(refname) %(objectname)', 'refs/heads']),
    lsTree: async (branch = 'main') =>
      (await gitIn(bare.dir, ['ls-tree', '-r', '-z', '--name-only', `refs/heads/${branch}`]))
        .split('\0')
        .filter(Boolean),
    close: async () => {
      await srv.close();
      await github?.close();
      await emulator?.close();
      await bare.cleanup();
      users -= 1;
      if (users === 0) {
        sharedSource = undefined;
        await source.cleanup();
      }
    },
  };
}
