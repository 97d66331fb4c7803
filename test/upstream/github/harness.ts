// Shared set-up for the GitHub adapter tests: one emulator, bare repositories built from literal trees, and an
// adapter whose log lines are captured (so tests can grep them for the token).
import {
  createGitHubUpstream,
  type GitHubUpstream,
  type GitHubUpstreamOptions,
} from '../../../src/upstream/github/index.js';
import { makeRepo, type CommitSpec, type GitDir } from '../../support/gitdir.js';
import { startGitHubEmulator, type Emulator } from '../../support/github-emulator/index.js';

export const TOKEN = 'ghp_T0kenThatMustNeverLeak0123456789abcdef';

export interface LogLine {
  level: string;
  msg: string;
  fields?: Record<string, unknown>;
}

export interface Harness {
  emulator: Emulator;
  /** Adds a bare repository under `name` (default a fresh `acme/r<n>`). */
  repo(commits: CommitSpec[], name?: string): Promise<{ name: string; git: GitDir }>;
  /** A fresh adapter against the emulator with fast test timings; its log lines land in `logs`. */
  upstream(overrides?: Partial<GitHubUpstreamOptions>): GitHubUpstream;
  logs: LogLine[];
  /** Requests the emulator saw since `mark()`. */
  mark(): () => { method: string; path: string; status: number; route?: string }[];
  close(): Promise<void>;
}

/** Starts an emulator and returns helpers around it. */
export async function startHarness(opts: { treeEntryLimit?: number } = {}): Promise<Harness> {
  const emulator = await startGitHubEmulator({ token: TOKEN, ...opts });
  const dirs: GitDir[] = [];
  const logs: LogLine[] = [];
  let n = 0;
  return {
    emulator,
    logs,
    async repo(commits, name) {
      const git = await makeRepo(commits, { bare: true });
      dirs.push(git);
      n += 1;
      const full = name ?? `acme/r${n}`;
      emulator.addRepo(full, git.dir);
      return { name: full, git };
    },
    upstream(overrides = {}) {
      return createGitHubUpstream({
        token: TOKEN,
        baseUrl: emulator.url,
        log: (level, msg, fields) => logs.push(fields ? { level, msg, fields } : { level, msg }),
        writeSpacingMs: 0,
        retryDelayMs: 5,
        maxRetries: 2,
        maxRateLimitWaitSeconds: 3,
        requestTimeoutMs: 20_000,
        ...overrides,
      });
    },
    mark() {
      const start = emulator.requests.length;
      return () => emulator.requests.slice(start);
    },
    async close() {
      await emulator.close();
      for (const d of dirs) await d.cleanup();
    },
  };
}
