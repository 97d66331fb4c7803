// The emulator's mutable world: repositories by name, tokens, rate-limit budgets, faults and the request log.
import { createHash } from 'node:crypto';
import { BatchPool } from './batch.js';
import { PullWorld } from './pulls-state.js';
import { GitHubError } from './reply.js';

/** The user every accepted token authenticates as. */
export interface EmulatedUser {
  login: string;
  id: number;
  name: string;
  email: string;
}

export const DEFAULT_USER: EmulatedUser = {
  login: 'blinder-bot',
  id: 4242,
  name: 'Blinder Bot',
  email: '4242+blinder-bot@users.noreply.github.com',
};

/** What the request log keeps. */
export interface RecordedRequest {
  method: string;
  /** Raw path and query as received. */
  path: string;
  status: number;
  /** OpenAPI template of the matched operation, e.g. `GET /repos/{owner}/{repo}/contents/{path}`. */
  route?: string;
}

/** A served repository. */
export interface RepoEntry {
  owner: string;
  name: string;
  fullName: string;
  dir: string;
  /** The emulator's cat-file processes (shared by every repository). */
  batch: BatchPool;
  id: number;
  createdAt: string;
}

/** Per-token primary budget. */
export interface Budget {
  used: number;
  resetEpoch: number;
}

/** One pending fault; counts down as requests consume it. */
export type PendingFault =
  | { kind: 'primary'; remaining: number; retryAfterSeconds: number; status: 403 | 429 }
  | { kind: 'secondary'; remaining: number; retryAfterSeconds: number | undefined; status: 403 | 429 }
  | { kind: 'server'; remaining: number; status: 500 | 502 | 503 };

/** A commit someone else pushes just before the next matching ref update. */
export interface RefRace {
  repo: string;
  branch: string;
  files: Record<string, string | null>;
  message: string;
}

/** Stable small integer from a string (repository ids, node ids). */
export function stableId(s: string): number {
  return (createHash('sha1').update(s).digest().readUInt32BE(0) % 900_000_000) + 100_000;
}

/** Everything the routes read and write. */
export class EmulatorState {
  url = '';
  readonly repos = new Map<string, RepoEntry>();
  readonly batch = new BatchPool();
  readonly budgets = new Map<string, Budget>();
  readonly pending: PendingFault[] = [];
  readonly races: RefRace[] = [];
  readonly denied: { repo: string; token: string | undefined }[] = [];
  readonly requests: RecordedRequest[] = [];
  /** Pull requests and CI results, per repository. */
  readonly pullWorld = new PullWorld();
  /** Tail of each ref's queue of check-and-set updates. */
  readonly refLocks = new Map<string, Promise<unknown>>();
  latencyMs = 0;
  largeFileContents: 'empty' | 'forbidden' = 'empty';

  readonly tokens: readonly string[] | null;
  readonly limit: number;
  readonly treeEntryLimit: number;
  readonly user: EmulatedUser;

  constructor(tokens: readonly string[] | null, limit: number, treeEntryLimit: number, user: EmulatedUser) {
    this.tokens = tokens;
    this.limit = limit;
    this.treeEntryLimit = treeEntryLimit;
    this.user = user;
  }

  /** Registers `owner/name` backed by a bare repository directory. */
  addRepo(fullName: string, dir: string): void {
    const [owner, name, ...rest] = fullName.split('/');
    if (!owner || !name || rest.length) throw new Error(`repository name must be owner/name: ${fullName}`);
    this.repos.set(fullName.toLowerCase(), {
      owner,
      name,
      fullName,
      dir,
      batch: this.batch,
      id: stableId(fullName.toLowerCase()),
      createdAt: '2026-01-01T00:00:00Z',
    });
  }

  /** The repository for path parameters (case-insensitive, `.git` suffix tolerated), or GitHub's 404. */
  repo(owner: string, name: string, token: string, docs: string): RepoEntry {
    const key = `${owner}/${name.replace(/\.git$/, '')}`.toLowerCase();
    const r = this.repos.get(key);
    if (!r || this.isDenied(r.fullName, token)) throw new GitHubError(404, 'Not Found', docs);
    return r;
  }

  /** True when this token must not see the repository. */
  isDenied(fullName: string, token: string): boolean {
    const key = fullName.toLowerCase();
    return this.denied.some((d) => d.repo.toLowerCase() === key && (d.token === undefined || d.token === token));
  }

  /** True when the token is accepted. */
  tokenOk(token: string): boolean {
    return this.tokens === null ? token.length > 0 : this.tokens.includes(token);
  }

  /** The budget for a token, rolled over when its hour has passed. */
  budget(token: string, nowEpoch: number): Budget {
    let b = this.budgets.get(token);
    if (!b || b.resetEpoch <= nowEpoch) {
      b = { used: 0, resetEpoch: nowEpoch + 3600 };
      this.budgets.set(token, b);
    }
    return b;
  }
}
