// Shared fixtures for the emulator's tests: a bare repository with a known history, and a started emulator.
import { createHash } from 'node:crypto';
import { cp, mkdtemp, rename, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gitIn, makeRepo, type CommitSpec, type GitDir } from '../support/gitdir.js';
import { startGitHubEmulator, type Emulator, type EmulatorOptions } from '../support/github-emulator/index.js';

export const TOKEN = 'ghp_test_token';

/** History with nested dirs, a symlink, a rename, a deletion, a binary file, a large file and a second branch. */
export const HISTORY: CommitSpec[] = [
  {
    message: 'initial layout',
    files: {
      'README.md': '# demo\n',
      'src/app.ts': 'export const app = 1;\n',
      'src/lib/util.ts': 'export function util() {\n  return 1;\n}\n',
      'src/lib/deep/x.txt': 'x\n',
      'docs/guide.md': 'guide\n',
      'link-to-readme': { symlink: 'README.md' },
      dangling: { symlink: 'nowhere/at/all' },
      'dir with space/a b#?.txt': 'odd name\n',
    },
  },
  { message: 'edit util', files: { 'src/lib/util.ts': 'export function util() {\n  return 2;\n}\n' } },
  { message: 'rename guide', files: { 'docs/guide.md': null, 'docs/manual.md': 'guide\n' } },
  {
    message: 'binary and big',
    files: { 'img/logo.bin': Buffer.from([0, 1, 2, 3, 255, 254, 0, 10]), 'big.txt': 'y'.repeat(1_100_000) },
  },
  {
    message: 'touch src/app',
    files: { 'src/app.ts': 'export const app = 2;\n', 'src/appendix.ts': 'not under src/app\n' },
  },
  { message: 'drop deep', files: { 'src/lib/deep/x.txt': null } },
  { message: 'feature work', branch: 'feature/x', files: { 'feature.txt': 'feature\n' } },
];

export interface Fixture {
  repo: GitDir;
  em: Emulator;
  /** fetch against the emulator with auth and a User-Agent. */
  get(path: string, init?: RequestInit & { token?: string | null }): Promise<Response>;
  /** JSON request helper: returns status, headers and parsed body. */
  call(
    method: string,
    path: string,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<{ status: number; headers: Headers; body: unknown }>;
  close(): Promise<void>;
}

/**
 * A private copy of the bare repository built from HISTORY. Building it costs ~40 git processes, so the first test
 * file to need it builds it once into the temp directory (atomic rename) and every file copies that. The copy has no
 * scratch working tree: `commit()` is not available (use makeRepo for tests that push from outside).
 */
async function historyCopy(): Promise<GitDir> {
  const key = createHash('sha256')
    .update(
      JSON.stringify(HISTORY, (_k, v: unknown) =>
        v && typeof v === 'object' && (v as { type?: string }).type === 'Buffer' ? `buf:${JSON.stringify(v)}` : v,
      ),
    )
    .digest('hex')
    .slice(0, 16);
  const cached = join(tmpdir(), `gb-emulator-history-${key}.git`);
  if (!(await stat(join(cached, 'HEAD')).catch(() => null))) {
    const built = await makeRepo(HISTORY, { bare: true });
    await rename(built.dir, cached).catch(() => undefined); // another worker may have won the race: fine
    await built.cleanup();
  }
  const root = await mkdtemp(join(tmpdir(), 'gb-emulator-'));
  const dir = join(root, 'repo.git');
  await cp(cached, dir, { recursive: true });
  return {
    dir,
    git: (...args) => gitIn(dir, args),
    head: async (branch = 'main') => (await gitIn(dir, ['rev-parse', `refs/heads/${branch}`])).trim(),
    commit: () => Promise.reject(new Error('commit() needs a repository from makeRepo')),
    cleanup: () => rm(root, { recursive: true, force: true }),
  };
}

/** Builds a bare repository from `history` and serves it as `octo/demo`. */
export async function startFixture(history: CommitSpec[] = HISTORY, opts: EmulatorOptions = {}): Promise<Fixture> {
  const repo = history === HISTORY ? await historyCopy() : await makeRepo(history, { bare: true });
  const em = await startGitHubEmulator({ token: TOKEN, ...opts, repos: { 'octo/demo': repo.dir, ...opts.repos } });
  const get = (path: string, init: RequestInit & { token?: string | null } = {}): Promise<Response> => {
    const { token = TOKEN, headers, ...rest } = init;
    const h: Record<string, string> = {
      'user-agent': 'emulator-test',
      accept: 'application/vnd.github.v3+json',
      ...(headers as Record<string, string> | undefined),
    };
    if (token !== null) h.authorization = `token ${token}`;
    return fetch(`${em.url}${path}`, { ...rest, headers: h });
  };
  const call: Fixture['call'] = async (method, path, body, headers = {}) => {
    const res = await get(path, {
      method,
      headers: { 'content-type': 'application/json; charset=utf-8', ...headers },
      ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      /* raw body */
    }
    return { status: res.status, headers: res.headers, body: parsed };
  };
  return {
    repo,
    em,
    get,
    call,
    close: async () => {
      await em.close();
      await repo.cleanup();
    },
  };
}

/** Loose record type for response bodies in assertions. */
export type Obj = Record<string, unknown> & { [k: string]: any };
