// Real git repositories built from a literal file tree, for tests (changesets' gitdir idea).
// git init with gc/maintenance off, branch `main`, signing off, fixed identity and dates; removed by cleanup().
import { execFile } from 'node:child_process';
import { mkdtemp, mkdir, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** File content: text, `null` to delete, or a symlink target. */
export type FileSpec = string | Buffer | null | { symlink: string };

export interface CommitSpec {
  message: string;
  files: Record<string, FileSpec>;
  /** Commit on this branch (created from the current HEAD when new). Default: the current branch. */
  branch?: string;
}

export interface GitDir {
  /** Working tree (or bare repository when `bare: true`). */
  readonly dir: string;
  git(...args: string[]): Promise<string>;
  /** Head SHA of a branch. */
  head(branch?: string): Promise<string>;
  /** Adds a commit after creation (on a non-bare repository, or through a scratch clone for a bare one). */
  commit(spec: CommitSpec): Promise<string>;
  cleanup(): Promise<void>;
}

const ENV = {
  GIT_AUTHOR_NAME: 'Test Author',
  GIT_AUTHOR_EMAIL: 'author@example.test',
  GIT_COMMITTER_NAME: 'Test Committer',
  GIT_COMMITTER_EMAIL: 'committer@example.test',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_TERMINAL_PROMPT: '0',
};

let tick = 0;
/** Strictly increasing commit dates keep `git log` order deterministic. */
function nextDate(): string {
  tick += 1;
  return new Date(Date.UTC(2026, 0, 1) + tick * 60_000).toISOString();
}

/** Runs git in `cwd` with a fixed, hermetic environment; returns stdout. */
export async function gitIn(cwd: string, args: string[], extraEnv: Record<string, string> = {}): Promise<string> {
  const { stdout } = await run('git', args, {
    cwd,
    env: { ...process.env, HOME: cwd, ...ENV, ...extraEnv },
    maxBuffer: 64 * 1024 * 1024,
  });
  return stdout;
}

async function configure(dir: string): Promise<void> {
  for (const [k, v] of [
    ['gc.auto', '0'],
    ['maintenance.auto', 'false'],
    ['commit.gpgSign', 'false'],
    ['core.autocrlf', 'false'],
    ['user.name', ENV.GIT_COMMITTER_NAME],
    ['user.email', ENV.GIT_COMMITTER_EMAIL],
  ] as const) {
    await gitIn(dir, ['config', k, v]);
  }
}

async function applyCommit(work: string, spec: CommitSpec): Promise<string> {
  if (spec.branch) {
    const exists = await gitIn(work, ['branch', '--list', spec.branch]);
    if (exists.trim()) await gitIn(work, ['checkout', '-q', spec.branch]);
    else await gitIn(work, ['checkout', '-q', '-b', spec.branch]);
  }
  for (const [path, content] of Object.entries(spec.files)) {
    const abs = join(work, path);
    if (content === null) {
      await gitIn(work, ['rm', '-q', '-r', '--cached', '--ignore-unmatch', '--', path]);
      await rm(abs, { recursive: true, force: true });
      continue;
    }
    await mkdir(dirname(abs), { recursive: true });
    await rm(abs, { force: true });
    if (typeof content === 'object' && !Buffer.isBuffer(content)) await symlink(content.symlink, abs);
    else await writeFile(abs, content);
  }
  await gitIn(work, ['add', '-A']);
  const date = nextDate();
  await gitIn(work, ['commit', '-q', '--allow-empty', '-m', spec.message], {
    GIT_AUTHOR_DATE: date,
    GIT_COMMITTER_DATE: date,
  });
  return (await gitIn(work, ['rev-parse', 'HEAD'])).trim();
}

/** Creates a repository with the given commits. The first commit lands on `main`. */
export async function makeRepo(commits: CommitSpec[], opts: { bare?: boolean } = {}): Promise<GitDir> {
  const root = await mkdtemp(join(tmpdir(), 'gb-repo-'));
  const work = join(root, 'work');
  await mkdir(work);
  await gitIn(work, ['init', '-q', '-b', 'main']);
  await configure(work);
  for (const c of commits) await applyCommit(work, c);
  if (commits.length > 0) await gitIn(work, ['checkout', '-q', 'main']);

  let dir = work;
  if (opts.bare) {
    dir = join(root, 'repo.git');
    await gitIn(root, ['clone', '-q', '--bare', '--no-local', work, dir]);
    await configure(dir);
    // A bare clone keeps only the checked-out branch as a local head unless we copy the others.
    for (const line of (
      await gitIn(work, ['for-each-ref', '--format=%(refname:short) %(objectname)', 'refs/heads'])
    ).split('\n')) {
      const [name, sha] = line.split(' ');
      if (name && sha) await gitIn(dir, ['update-ref', `refs/heads/${name}`, sha]);
    }
    await gitIn(dir, ['remote', 'remove', 'origin']).catch(() => undefined);
  }

  return {
    dir,
    git: (...args) => gitIn(dir, args),
    head: async (branch = 'main') => (await gitIn(dir, ['rev-parse', `refs/heads/${branch}`])).trim(),
    commit: async (spec) => {
      if (!opts.bare) return applyCommit(work, spec);
      // Commit through the scratch working copy, then move the bare branch to it.
      const branch = spec.branch ?? 'main';
      const head = (await gitIn(dir, ['rev-parse', `refs/heads/${branch}`]).catch(() => '')).trim();
      await gitIn(work, ['fetch', '-q', dir, `+refs/heads/*:refs/remotes/bare/*`]);
      await gitIn(work, ['checkout', '-q', '-B', branch, head || 'HEAD']);
      const sha = await applyCommit(work, { ...spec, branch });
      await gitIn(work, ['push', '-q', dir, `${branch}:refs/heads/${branch}`]);
      return sha;
    },
    cleanup: () => rm(root, { recursive: true, force: true }),
  };
}
