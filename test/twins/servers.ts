// The two servers a twin check talks to on one upstream: one per twin, started once and reused for many pairs (each
// pair registers its own perimeter ids). Both share the cursor key and the proposal clock, so a sealed cursor or a
// proposal's dates can only differ through what they seal.
import { randomBytes } from 'node:crypto';
import { cursorSeal, DEFAULT_LIMITS, RateLimiter } from '../../src/mcp/index.js';
import { createGitHubUpstream, type GitHubUpstream } from '../../src/upstream/github/index.js';
import type { UpstreamKind } from '../support/both-upstreams.js';
import { startGitHubEmulator, type Emulator, type PullController } from '../support/github-emulator/index.js';
import { startTestServer, type TestServer } from '../support/server.js';

const TOKEN = 'ghp_TwinCheckEmulatorToken0123456789abcd';
/** The proposal clock both twins share (proposal dates are then equal by construction). */
const PROPOSAL_NOW = Date.UTC(2030, 0, 1);

/** One twin's serving side. */
export interface TwinSide {
  readonly srv: TestServer;
  /** How a perimeter names this twin's repository `dir` (registered with the emulator on GitHub). */
  repoFor(name: string, dir: string): string;
  /** What people and CI do around pull requests (GitHub only; local git keeps no PRs). */
  readonly pulls?: PullController;
}

/** Both twins' servers on one upstream. */
export interface TwinServers {
  readonly kind: UpstreamKind;
  readonly a: TwinSide;
  readonly b: TwinSide;
  /** The seal both servers share: the driver seals `fetch` ids for any path, as a forger holding a leaked id could. */
  readonly seal: ReturnType<typeof cursorSeal>;
  close(): Promise<void>;
}

async function side(kind: UpstreamKind, key: Buffer): Promise<{ side: TwinSide; close: () => Promise<void> }> {
  const common = {
    limiter: new RateLimiter(),
    policy: { defaultLimits: DEFAULT_LIMITS },
    cursors: cursorSeal(key),
    proposals: { now: () => PROPOSAL_NOW },
  };
  if (kind === 'local') {
    const srv = await startTestServer(common);
    return { side: { srv, repoFor: (_name, dir) => dir }, close: () => srv.close() };
  }
  const emulator: Emulator = await startGitHubEmulator({ token: TOKEN, rateLimit: { limit: 100_000_000 } });
  const up: GitHubUpstream = createGitHubUpstream({
    token: TOKEN,
    baseUrl: emulator.url,
    writeSpacingMs: 0,
    retryDelayMs: 5,
    maxRetries: 1,
    maxRateLimitWaitSeconds: 1,
  });
  const names = new Set<string>();
  const srv = await startTestServer({ ...common, upstream: up, upstreamFor: (r) => (names.has(r) ? up : undefined) });
  return {
    side: {
      srv,
      pulls: emulator.pulls,
      repoFor: (name, dir) => {
        const full = `acme/${name}`;
        emulator.addRepo(full, dir);
        names.add(full);
        return full;
      },
    },
    close: async () => {
      await srv.close();
      await up.close();
      await emulator.close();
    },
  };
}

/** Starts both twins' servers on `kind`. */
export async function startTwinServers(kind: UpstreamKind): Promise<TwinServers> {
  const key = randomBytes(32);
  const [a, b] = await Promise.all([side(kind, key), side(kind, key)]);
  return {
    kind,
    a: a.side,
    b: b.side,
    seal: cursorSeal(key),
    close: async () => {
      await Promise.all([a.close(), b.close()]);
    },
  };
}
