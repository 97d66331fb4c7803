// One repository served through the real server on either upstream: local git on a bare copy, or the GitHub adapter
// talking to the emulator over the same bare copy. For regression tests that must hold on both.
import { createGitHubUpstream } from '../../src/upstream/github/index.js';
import { gitIn, makeRepo, type CommitSpec } from './gitdir.js';
import { startGitHubEmulator, type Emulator } from './github-emulator/index.js';
import { startTestServer, type TestServer } from './server.js';

export type UpstreamKind = 'local' | 'github';
export const UPSTREAM_KINDS: readonly UpstreamKind[] = ['local', 'github'];

const TOKEN = 'ghp_BothUpstreamsEmulatorToken0123456789';

/** A served repository: the server, the name perimeters use, and the bare directory writes land in. */
export interface Served {
  readonly kind: UpstreamKind;
  readonly srv: TestServer;
  readonly repo: string;
  readonly bare: string;
  head(branch?: string): Promise<string>;
  /** Every path on a branch, from git itself. */
  files(branch?: string): Promise<string[]>;
  close(): Promise<void>;
}

/** Builds `commits` into a bare repository and serves it on `kind`. */
export async function serveBoth(kind: UpstreamKind, commits: CommitSpec[]): Promise<Served> {
  const src = await makeRepo(commits, { bare: true });
  let emulator: Emulator | undefined;
  let srv: TestServer;
  let repo = src.dir;
  if (kind === 'github') {
    emulator = await startGitHubEmulator({ token: TOKEN, repos: { 'acme/both': src.dir } });
    const github = createGitHubUpstream({ token: TOKEN, baseUrl: emulator.url, writeSpacingMs: 0, retryDelayMs: 5, maxRetries: 1, maxRateLimitWaitSeconds: 1 });
    srv = await startTestServer({ upstream: github, upstreamFor: (r) => (r === 'acme/both' ? github : undefined) });
    repo = 'acme/both';
  } else {
    srv = await startTestServer();
  }
  return {
    kind,
    srv,
    repo,
    bare: src.dir,
    head: async (branch = 'main') => (await gitIn(src.dir, ['rev-parse', `refs/heads/${branch}`])).trim(),
    files: async (branch = 'main') => (await gitIn(src.dir, ['ls-tree', '-r', '-z', '--name-only', `refs/heads/${branch}`])).split('\0').filter(Boolean),
    close: async () => {
      await srv.close();
      await emulator?.close();
      await src.cleanup();
    },
  };
}
