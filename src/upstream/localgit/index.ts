// The local git upstream: the port implemented over the git CLI, reading only from the object database.
import { statSync } from 'node:fs';
import type { GrepRequest, UpResult, Upstream, UpstreamHealth, RepoInfo, WriteRequest } from '../types.js';
import { fail, gitFailure, ok, readerFailure, type Failed, type Log } from './errors.js';
import { ObjectReaderError } from '../../gitcli/object-reader.js';
import { runGit } from '../../gitcli/run.js';
import { compare, getCommit, listCommits } from './history.js';
import { readBlobs } from './blobs.js';
import { grep, isAncestor } from './grep.js';
import { createKeyedMutex } from './mutex.js';
import { assertNever, BRANCH_BUSY, BRANCH_LOCK_UNAVAILABLE, branchLockKey, type BranchLock } from '../../core/index.js';
import { branchHead, resolveCommit } from './refs.js';
import { closeRepo, openRepo, type Repo } from './repo.js';
import { listTree } from './tree.js';
import { commitFiles, type WriteHooks } from './write.js';
import { applyRestorePoint, createRestorePoint, dropRestorePoint, listRestorePoints } from './restore.js';

export type { Log } from './errors.js';
export type { WriteHooks } from './write.js';

export interface LocalGitOptions {
  /**
   * Absolute repository paths listed by listRepos (any other absolute repository path may be used too). A function is
   * asked at each listing (the repositories the shared store holds now, which another instance may have changed);
   * a list is grown by every repository opened since.
   */
  readonly repos?: readonly string[] | (() => Iterable<string>);
  readonly log?: Log;
  /** Largest file readFiles returns; bigger ones get `too_large`. Default 10 MiB. */
  readonly maxFileBytes?: number;
  /** Test and operator seam around writes. */
  readonly hooks?: WriteHooks;
  /**
   * The lock shared with other processes writing the same repositories (several instances on one store); without
   * it, writes are serialised in this process only.
   */
  readonly branchLock?: BranchLock;
}

/** Whether `path` is a directory now (any failure to tell reads as no). */
function isDirectory(path: string): boolean {
  try {
    return statSync(path, { throwIfNoEntry: false })?.isDirectory() === true;
  } catch {
    return false;
  }
}

/** Default for `maxFileBytes`. */
export const DEFAULT_MAX_FILE_BYTES = 10 * 1024 * 1024;

/** Creates the local git upstream. */
export function createLocalGitUpstream(opts: LocalGitOptions = {}): Upstream {
  const log: Log = opts.log ?? (() => undefined);
  const maxFileBytes = opts.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
  const hooks = opts.hooks ?? {};
  const current = typeof opts.repos === 'function' ? opts.repos : undefined;
  const known = new Set<string>(typeof opts.repos === 'function' ? [] : (opts.repos ?? []));
  const queue = createKeyedMutex();
  const shared = opts.branchLock;
  /**
   * One writer per repository and branch: in this process by the queue, across processes by the shared lock when
   * there is one. The ref's compare-and-swap alone protects the ref, not a checked-out working tree moved with it.
   */
  const serial = <T>(repo: Repo, branch: string, task: () => Promise<UpResult<T>>): Promise<UpResult<T>> => {
    const key = branchLockKey(repo.commonDir, branch);
    return queue(key, async () => {
      if (shared === undefined) return task();
      const held = await shared(key, task);
      switch (held.kind) {
        case 'held':
          return held.value;
        case 'busy':
          return fail('unavailable', BRANCH_BUSY);
        case 'unavailable':
          return fail('unavailable', BRANCH_LOCK_UNAVAILABLE);
        default:
          return assertNever(held, 'branch lock');
      }
    });
  };

  // Opening costs one or two git processes; a repository's layout does not change under a running server, so a
  // successful open is kept and only re-checked with a stat of its git dir (a deleted repository is opened afresh).
  // The stat is synchronous: a few microseconds on a cached inode, where the promise form's thread-pool round trip
  // was a tenth of a busy server's CPU (issue 24 profile).
  const opened = new Map<string, Repo>();
  async function open(path: string): Promise<{ ok: true; value: Repo } | Failed> {
    const cached = opened.get(path);
    if (cached) {
      if (isDirectory(cached.gitDir)) return ok(cached);
      // A repository that went away takes its reader with it; a new one at the same path gets a fresh reader.
      opened.delete(path);
      closeRepo(cached);
    }
    const repo = await openRepo(path, log);
    if (repo.ok) {
      const raced = opened.get(path);
      // Two calls opening the same path at once: keep the first, end the other's (not yet started) reader.
      if (raced) {
        closeRepo(repo.value);
        return ok(raced);
      }
      known.add(path);
      opened.set(path, repo.value);
    }
    return repo;
  }

  /** Opens the repository and resolves `ref`, then runs `fn`. */
  async function atRef<T>(
    path: string,
    ref: string,
    fn: (repo: Repo, commit: string) => Promise<UpResult<T>>,
  ): Promise<UpResult<T>> {
    const repo = await open(path);
    if (!repo.ok) return repo;
    const commit = await resolveCommit(repo.value, ref);
    if (!commit.ok) return commit;
    return fn(repo.value, commit.value);
  }

  async function defaultBranch(path: string): Promise<UpResult<string>> {
    const repo = await open(path);
    if (!repo.ok) return repo;
    const run = await runGit(['symbolic-ref', '-q', '--short', 'HEAD'], repo.value.call);
    if (run.code === 0) return ok(run.stdout.toString('utf8').trim());
    // Detached HEAD: fall back to the conventional names, then to the first branch.
    const branches = await upstream.listBranches(path);
    if (!branches.ok) return branches;
    const names = branches.value.map((b) => b.name);
    const pick = ['main', 'master'].find((n) => names.includes(n)) ?? names[0];
    return pick ? ok(pick) : fail('empty_repository', 'The repository has no commits yet.');
  }

  /** The one place an object reader that could not answer becomes an UpstreamError (broken invariants still throw). */
  function guarded<A extends unknown[], T>(
    doing: string,
    fn: (...args: A) => Promise<UpResult<T>>,
  ): (...args: A) => Promise<UpResult<T>> {
    return async (...args) => {
      try {
        return await fn(...args);
      } catch (err) {
        if (err instanceof ObjectReaderError) return readerFailure(err, doing, log);
        throw err;
      }
    };
  }

  const upstream: Upstream = {
    kind: 'local',

    async listRepos() {
      const out: RepoInfo[] = [];
      for (const name of current ? new Set(current()) : known) {
        const branch = await defaultBranch(name);
        if (branch.ok) out.push({ name, defaultBranch: branch.value });
        else log('warn', 'configured repository is not usable', { repo: name, code: branch.error.code });
      }
      return ok(out);
    },

    defaultBranch,

    async listBranches(path) {
      const repo = await open(path);
      if (!repo.ok) return repo;
      const run = await runGit(
        ['for-each-ref', '--sort=refname', '--format=%(refname)%00%(objectname)', 'refs/heads/'],
        repo.value.call,
      );
      if (run.code !== 0) return gitFailure(run, 'listing branches', log);
      const branches = run.stdout
        .toString('utf8')
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => {
          const [ref = '', sha = ''] = l.split('\0');
          return { name: ref.slice('refs/heads/'.length), sha };
        });
      return ok(branches);
    },

    branchHead: guarded('reading a branch', async (path: string, branch: string) => {
      const repo = await open(path);
      if (!repo.ok) return repo;
      return branchHead(repo.value, branch);
    }),

    getTree: guarded('listing a tree', (path: string, ref: string, dir: string) =>
      atRef(path, ref, (repo, commit) => listTree(repo, commit, dir)),
    ),

    readFiles: guarded('reading files', (path: string, ref: string, paths: readonly string[]) =>
      atRef(path, ref, (repo, commit) => readBlobs(repo, commit, paths, maxFileBytes)),
    ),

    listCommits: guarded(
      'listing commits',
      (
        path: string,
        ref: string,
        query: { readonly paths: readonly string[]; readonly skip: number; readonly limit: number },
      ) => atRef(path, ref, (repo, commit) => listCommits(repo, commit, query)),
    ),

    getCommit: guarded('reading a commit', async (path: string, sha: string, reachableFrom?: string) => {
      const repo = await open(path);
      if (!repo.ok) return repo;
      if (reachableFrom === undefined) return getCommit(repo.value, sha);
      const from = await resolveCommit(repo.value, reachableFrom);
      if (!from.ok) return from;
      return getCommit(repo.value, sha, from.value);
    }),

    compare: guarded('comparing commits', async (path: string, base: string, head: string) => {
      const repo = await open(path);
      if (!repo.ok) return repo;
      const b = await resolveCommit(repo.value, base);
      if (!b.ok) return b;
      const h = await resolveCommit(repo.value, head);
      if (!h.ok) return h;
      return compare(repo.value, b.value, h.value);
    }),

    isAncestor: guarded('comparing commits', async (path: string, ancestor: string, head: string) => {
      const repo = await open(path);
      return repo.ok ? isAncestor(repo.value, ancestor, head) : repo;
    }),

    grep: guarded('searching', async (path: string, commit: string, request: GrepRequest) => {
      const repo = await open(path);
      return repo.ok ? grep(repo.value, commit, request) : repo;
    }),

    commitFiles: guarded('writing a commit', async (path: string, branch: string, request: WriteRequest) => {
      const repo = await open(path);
      if (!repo.ok) return repo;
      return serial(repo.value, branch, () => commitFiles(repo.value, branch, request, hooks));
    }),

    restorePoints: {
      create: guarded('creating a restore point', async (path: string, branch: string, id: string) => {
        const repo = await open(path);
        if (!repo.ok) return repo;
        return serial(repo.value, branch, () => createRestorePoint(repo.value, branch, id));
      }),
      list: guarded('listing restore points', async (path: string) => {
        const repo = await open(path);
        return repo.ok ? listRestorePoints(repo.value) : repo;
      }),
      apply: guarded('applying a restore point', async (path: string, id: string) => {
        const repo = await open(path);
        if (!repo.ok) return repo;
        const points = await listRestorePoints(repo.value);
        if (!points.ok) return points;
        const branch = points.value.find((p) => p.id === id)?.branch ?? '';
        // Serialized with writes to the same branch, so a restore never interleaves with a commit.
        return serial(repo.value, branch, () => applyRestorePoint(repo.value, id));
      }),
      drop: guarded('deleting a restore point', async (path: string, id: string) => {
        const repo = await open(path);
        return repo.ok ? dropRestorePoint(repo.value, id) : repo;
      }),
    },

    async health(): Promise<UpstreamHealth> {
      const run = await runGit(['--version'], { cwd: '/' });
      return run.code === 0
        ? { ok: true, detail: run.stdout.toString('utf8').trim() }
        : { ok: false, detail: 'git is not available' };
    },

    async close() {
      for (const repo of opened.values()) closeRepo(repo);
      opened.clear();
    },
  };
  return upstream;
}
