// Shared fixtures for the emulator's tests: a bare repository with a known history, and a started emulator.
import { makeRepo, type CommitSpec, type GitDir } from '../support/gitdir.js';
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
      'dangling': { symlink: 'nowhere/at/all' },
      'dir with space/a b#?.txt': 'odd name\n',
    },
  },
  { message: 'edit util', files: { 'src/lib/util.ts': 'export function util() {\n  return 2;\n}\n' } },
  { message: 'rename guide', files: { 'docs/guide.md': null, 'docs/manual.md': 'guide\n' } },
  { message: 'binary and big', files: { 'img/logo.bin': Buffer.from([0, 1, 2, 3, 255, 254, 0, 10]), 'big.txt': 'y'.repeat(1_100_000) } },
  { message: 'touch src/app', files: { 'src/app.ts': 'export const app = 2;\n', 'src/appendix.ts': 'not under src/app\n' } },
  { message: 'drop deep', files: { 'src/lib/deep/x.txt': null } },
  { message: 'feature work', branch: 'feature/x', files: { 'feature.txt': 'feature\n' } },
];

export interface Fixture {
  repo: GitDir;
  em: Emulator;
  /** fetch against the emulator with auth and a User-Agent. */
  get(path: string, init?: RequestInit & { token?: string | null }): Promise<Response>;
  /** JSON request helper: returns status, headers and parsed body. */
  call(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<{ status: number; headers: Headers; body: unknown }>;
  close(): Promise<void>;
}

/** Builds a bare repository from `history` and serves it as `octo/demo`. */
export async function startFixture(history: CommitSpec[] = HISTORY, opts: EmulatorOptions = {}): Promise<Fixture> {
  const repo = await makeRepo(history, { bare: true });
  const em = await startGitHubEmulator({ token: TOKEN, ...opts, repos: { 'octo/demo': repo.dir, ...opts.repos } });
  const get = (path: string, init: RequestInit & { token?: string | null } = {}): Promise<Response> => {
    const { token = TOKEN, headers, ...rest } = init;
    const h: Record<string, string> = { 'user-agent': 'emulator-test', accept: 'application/vnd.github.v3+json', ...(headers as Record<string, string> | undefined) };
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
