// One repository served through the real server on either upstream: local git on a bare copy, or the GitHub adapter
// talking to the emulator over the same bare copy. For regression tests that must hold on both.
import { DEFAULT_LIMITS, RateLimiter } from '../../src/mcp/index.js';
import { createGitHubUpstream, type GitHubUpstream } from '../../src/upstream/github/index.js';
import { createLocalGitUpstream } from '../../src/upstream/localgit/index.js';
import type { Upstream } from '../../src/upstream/types.js';
import { unfence } from './fence.js';
import { gitIn, makeRepo, type CommitSpec, type GitDir } from './gitdir.js';
import { startGitHubEmulator, type Emulator } from './github-emulator/index.js';
import { startTestServer, type TestServer, type TestServerOptions } from './server.js';

export type UpstreamKind = 'local' | 'github';
export const UPSTREAM_KINDS: readonly UpstreamKind[] = ['local', 'github'];

const TOKEN = 'ghp_BothUpstreamsEmulatorToken0123456789';

/** A served repository: the server, the name perimeters use, and the bare directory writes land in. */
export interface Served {
  readonly kind: UpstreamKind;
  /** The bare repository itself, for commits made beside the server and ids read from git. */
  readonly git: GitDir;
  readonly srv: TestServer;
  readonly repo: string;
  readonly bare: string;
  /** The GitHub emulator (github kind only): its `pulls` seeds what people and CI do around pull requests. */
  readonly emulator?: Emulator;
  head(branch?: string): Promise<string>;
  /** Every path on a branch, from git itself. */
  files(branch?: string): Promise<string[]>;
  close(): Promise<void>;
}

/** Builds `commits` into a bare repository and serves it on `kind`; `limits` turns on the server's default limits. */
export async function serveBoth(
  kind: UpstreamKind,
  commits: CommitSpec[],
  opts: { limits?: boolean; server?: TestServerOptions; wrap?: (u: Upstream) => Upstream } = {},
): Promise<Served> {
  const src = await makeRepo(commits, { bare: true });
  const limits = {
    ...opts.server,
    ...(opts.limits ? { limiter: new RateLimiter(), policy: { defaultLimits: DEFAULT_LIMITS } } : {}),
  };
  let emulator: Emulator | undefined;
  let github: GitHubUpstream | undefined;
  let srv: TestServer;
  let repo = src.dir;
  if (kind === 'github') {
    emulator = await startGitHubEmulator({ token: TOKEN, repos: { 'acme/both': src.dir } });
    const up = createGitHubUpstream({
      token: TOKEN,
      baseUrl: emulator.url,
      writeSpacingMs: 0,
      retryDelayMs: 5,
      maxRetries: 1,
      maxRateLimitWaitSeconds: 1,
    });
    github = up;
    const served = opts.wrap ? opts.wrap(up) : up;
    srv = await startTestServer({
      ...limits,
      upstream: served,
      upstreamFor: (r) => (r === 'acme/both' ? served : undefined),
    });
    repo = 'acme/both';
  } else if (opts.wrap) {
    const served = opts.wrap(createLocalGitUpstream());
    srv = await startTestServer({ ...limits, upstream: served, upstreamFor: () => served });
  } else {
    srv = await startTestServer(limits);
  }
  return {
    kind,
    git: src,
    srv,
    repo,
    bare: src.dir,
    ...(emulator ? { emulator } : {}),
    head: async (branch = 'main') => (await gitIn(src.dir, ['rev-parse', `refs/heads/${branch}`])).trim(),
    files: async (branch = 'main') =>
      (await gitIn(src.dir, ['ls-tree', '-r', '-z', '--name-only', `refs/heads/${branch}`]))
        .split('\0')
        .filter(Boolean),
    close: async () => {
      await srv.close();
      await github?.close();
      await emulator?.close();
      await src.cleanup();
    },
  };
}

/** The whole answer of a call as one string, for byte comparisons. */
export const bytesOf = (r: { isError?: boolean; text: string; structured: unknown }): string =>
  JSON.stringify({ isError: r.isError ?? false, text: unfence(r.text), structured: r.structured ?? null });
