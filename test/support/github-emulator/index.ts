// A GitHub REST emulator over real bare git repositories, for tests and `npm run emulator`.
// Real HTTP, real git (execFile), GitHub's status codes, bodies, pagination and rate-limit headers.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pullController, type PullController } from './pulls-seed.js';
import { handle } from './server.js';
import { DEFAULT_USER, EmulatorState, type EmulatedUser, type RecordedRequest } from './state.js';

export type { RecordedRequest, EmulatedUser };
export type { PullController } from './pulls-seed.js';

export interface EmulatorOptions {
  /** Accepted tokens; when omitted any non-empty token is accepted. */
  token?: string | string[];
  /** 'owner/name' -> bare repository directory. */
  repos?: Record<string, string>;
  port?: number;
  host?: string;
  /** Primary budget per hour (default 5000). */
  rateLimit?: { limit: number };
  /** Entries after which a recursive tree listing is cut and flagged `truncated` (GitHub: 100,000). */
  treeEntryLimit?: number;
  /** The account every token authenticates as. */
  user?: EmulatedUser;
  /**
   * How GET contents answers a 1–100 MB file with the JSON media type: `'empty'` (current GitHub: content "" and
   * encoding "none", the default) or `'forbidden'` (the legacy 403 `too_large`).
   */
  largeFileContents?: 'empty' | 'forbidden';
}

export interface FaultController {
  /** Fail the next `count` requests with GitHub's primary (x-ratelimit-remaining: 0) or secondary limit answer. */
  rateLimit(opts: {
    kind: 'primary' | 'secondary';
    count?: number;
    retryAfterSeconds?: number;
    status?: 403 | 429;
  }): void;
  serverError(opts: { status?: 500 | 502 | 503; count?: number }): void;
  latency(ms: number): void;
  /** Before the next matching PATCH git/refs/heads/<branch>, someone else pushes this commit to the branch. */
  moveRefBeforeUpdate(opts: {
    repo: string;
    branch: string;
    files: Record<string, string | null>;
    message?: string;
  }): void;
  /** This token gets 404 on this repository (GitHub hides private repos from tokens without access). */
  denyRepo(opts: { repo: string; token?: string }): void;
  reset(): void;
}

export interface Emulator {
  /** e.g. http://127.0.0.1:PORT */
  url: string;
  addRepo(fullName: string, bareDir: string): void;
  faults: FaultController;
  /** Seeds what people and CI produce around pull requests (reviews, comments, check runs, statuses, fork PRs). */
  pulls: PullController;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

function faultsFor(s: EmulatorState): FaultController {
  return {
    rateLimit: ({ kind, count = 1, retryAfterSeconds, status = 403 }) => {
      if (kind === 'primary')
        s.pending.push({ kind, remaining: count, retryAfterSeconds: retryAfterSeconds ?? 60, status });
      else s.pending.push({ kind, remaining: count, retryAfterSeconds, status });
    },
    serverError: ({ status = 500, count = 1 }) => {
      s.pending.push({ kind: 'server', remaining: count, status });
    },
    latency: (ms) => {
      s.latencyMs = ms;
    },
    moveRefBeforeUpdate: ({ repo, branch, files, message = 'Concurrent push' }) => {
      s.races.push({ repo, branch, files, message });
    },
    denyRepo: ({ repo, token }) => {
      s.denied.push({ repo, token });
    },
    reset: () => {
      s.pending.length = 0;
      s.races.length = 0;
      s.denied.length = 0;
      s.latencyMs = 0;
    },
  };
}

/** Starts the emulator on `host:port` (default 127.0.0.1, an ephemeral port). */
export async function startGitHubEmulator(opts: EmulatorOptions = {}): Promise<Emulator> {
  const tokens = opts.token === undefined ? null : Array.isArray(opts.token) ? opts.token : [opts.token];
  const s = new EmulatorState(
    tokens,
    opts.rateLimit?.limit ?? 5000,
    opts.treeEntryLimit ?? 100_000,
    opts.user ?? DEFAULT_USER,
  );
  s.largeFileContents = opts.largeFileContents ?? 'empty';
  for (const [name, dir] of Object.entries(opts.repos ?? {})) s.addRepo(name, dir);

  const server = createServer((req, res) => {
    handle(s, req, res).catch((err: unknown) => {
      process.stderr.write(`github-emulator: ${(err as Error).stack ?? String(err)}\n`);
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json; charset=utf-8' });
      res.end(
        JSON.stringify({ message: 'Server Error', documentation_url: 'https://docs.github.com/rest', status: '500' }),
      );
    });
  });
  const host = opts.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  s.url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;

  return {
    url: s.url,
    addRepo: (fullName, dir) => s.addRepo(fullName, dir),
    faults: faultsFor(s),
    pulls: pullController(s),
    requests: s.requests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        s.batch.closeAll();
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}
