// Serves one literal repository through the real server over each upstream: local git on a bare repository, or the
// GitHub adapter talking to the emulator over the same bare repository. Issue tests run the same pairs on both.
import { DEFAULT_LIMITS, RateLimiter } from '../../src/mcp/index.js';
import { createGitHubUpstream, type GitHubUpstream } from '../../src/upstream/github/index.js';
import { createLocalGitUpstream } from '../../src/upstream/localgit/index.js';
import { makeRepo, type CommitSpec, type GitDir } from '../support/gitdir.js';
import { startGitHubEmulator, type Emulator } from '../support/github-emulator/index.js';
import { startTestServer, type TestServer } from '../support/server.js';

export type UpstreamKind = 'local' | 'github';
export const KINDS: readonly UpstreamKind[] = ['local', 'github'];

const TOKEN = 'ghp_IssueTestEmulatorToken0123456789abcd';

export interface Served {
  readonly kind: UpstreamKind;
  readonly git: GitDir;
  readonly srv: TestServer;
  /** Repository name as a perimeter names it. */
  readonly repo: string;
  close(): Promise<void>;
}

/** Builds the repository (bare) and serves it over `kind`, with agent keys off (open perimeters). */
export async function serveRepo(kind: UpstreamKind, commits: CommitSpec[]): Promise<Served> {
  const git = await makeRepo(commits, { bare: true });
  let emulator: Emulator | undefined;
  let github: GitHubUpstream | undefined;
  let srv: TestServer;
  let repo = git.dir;
  if (kind === 'github') {
    emulator = await startGitHubEmulator({ token: TOKEN, repos: { 'acme/issue': git.dir } });
    const up = createGitHubUpstream({ token: TOKEN, baseUrl: emulator.url, writeSpacingMs: 0, retryDelayMs: 5, maxRetries: 1, maxRateLimitWaitSeconds: 1 });
    github = up;
    repo = 'acme/issue';
    srv = await startTestServer({ limiter: new RateLimiter(), policy: { defaultLimits: DEFAULT_LIMITS }, upstream: up, upstreamFor: (r) => (r === repo ? up : undefined) });
  } else {
    srv = await startTestServer({ limiter: new RateLimiter(), policy: { defaultLimits: DEFAULT_LIMITS }, upstream: createLocalGitUpstream() });
  }
  return {
    kind,
    git,
    srv,
    repo,
    close: async () => {
      await srv.close();
      await github?.close();
      await emulator?.close();
      await git.cleanup();
    },
  };
}

/** The whole answer of a call as one string, for byte comparisons. */
export const bytesOf = (r: { isError?: boolean; text: string; structured: unknown }): string =>
  JSON.stringify({ isError: r.isError ?? false, text: r.text, structured: r.structured ?? null });
