// The emulator's only way into a repository: the git CLI through execFile (never a shell), paths after `--`.
import { execFile } from 'node:child_process';

/** Result of one git invocation; a non-zero exit is data here, not an exception. */
export interface GitRun {
  code: number;
  stdout: Buffer;
  stderr: string;
}

const ENV: Record<string, string> = {
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_TERMINAL_PROMPT: '0',
  GIT_OPTIONAL_LOCKS: '0',
  LC_ALL: 'C',
};

/** Runs `git -C dir <args>`; `input` is written to stdin; `env` extends the hermetic environment. */
export function gitRaw(
  dir: string,
  args: readonly string[],
  opts: { input?: string | Buffer; env?: Record<string, string> } = {},
): Promise<GitRun> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      'git',
      ['-c', 'core.quotePath=false', '-c', 'gc.auto=0', '-C', dir, ...args],
      { env: { ...process.env, ...ENV, ...opts.env }, encoding: 'buffer', maxBuffer: 512 * 1024 * 1024 },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === 'number' ? err.code : -1) : 0;
        if (err && typeof err.code !== 'number') {
          reject(err);
          return;
        }
        resolve({ code, stdout, stderr: stderr.toString('utf8') });
      },
    );
    if (opts.input !== undefined) child.stdin?.end(opts.input);
    else child.stdin?.end();
  });
}

/** Runs git and returns stdout as text; throws when git fails (a broken invariant for the caller). */
export async function git(
  dir: string,
  args: readonly string[],
  opts: { input?: string | Buffer; env?: Record<string, string> } = {},
): Promise<string> {
  const r = await gitRaw(dir, args, opts);
  if (r.code !== 0) throw new Error(`git ${args.join(' ')} failed (${r.code}): ${r.stderr.trim()}`);
  return r.stdout.toString('utf8');
}

/** One entry of `git ls-tree -l -z`. */
export interface LsEntry {
  mode: string;
  type: 'blob' | 'tree' | 'commit';
  sha: string;
  size: number | null;
  path: string;
}

/** Parses `git ls-tree -l -z` output. */
export function parseLsTree(out: Buffer): LsEntry[] {
  const entries: LsEntry[] = [];
  for (const rec of out.toString('utf8').split('\0')) {
    if (!rec) continue;
    const tab = rec.indexOf('\t');
    const [mode, type, sha, size] = rec.slice(0, tab).split(/ +/);
    if (!mode || !type || !sha || size === undefined) continue;
    entries.push({
      mode,
      type: type as LsEntry['type'],
      sha,
      size: size === '-' ? null : Number(size),
      path: rec.slice(tab + 1),
    });
  }
  return entries;
}

/** Lists a tree (optionally recursive, directories included) at `treeish`. */
export async function lsTree(dir: string, treeish: string, recursive: boolean): Promise<LsEntry[]> {
  const args = ['ls-tree', '-l', '-z', ...(recursive ? ['-r', '-t'] : []), '--end-of-options', treeish];
  return parseLsTree((await gitRaw(dir, args)).stdout);
}

/** Parsed commit metadata. */
export interface CommitInfo {
  sha: string;
  tree: string;
  parents: string[];
  authorName: string;
  authorEmail: string;
  authorDate: string;
  committerName: string;
  committerEmail: string;
  committerDate: string;
  message: string;
}

const FORMAT = ['%H', '%T', '%P', '%an', '%ae', '%at', '%cn', '%ce', '%ct', '%B'].join('%x1f') + '%x1e';

function isoSeconds(epoch: string): string {
  return new Date(Number(epoch) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** Parses `git log --format=FORMAT` output into commit records. */
function parseLog(out: string): CommitInfo[] {
  const commits: CommitInfo[] = [];
  for (const rec of out.split('\x1e')) {
    const f = rec.replace(/^\n/, '').split('\x1f');
    if (f.length < 10) continue;
    const [sha, tree, parents, an, ae, at, cn, ce, ct] = f as [
      string,
      string,
      string,
      string,
      string,
      string,
      string,
      string,
      string,
    ];
    commits.push({
      sha,
      tree,
      parents: parents ? parents.split(' ') : [],
      authorName: an,
      authorEmail: ae,
      authorDate: isoSeconds(at),
      committerName: cn,
      committerEmail: ce,
      committerDate: isoSeconds(ct),
      message: f.slice(9).join('\x1f').replace(/\n$/, ''),
    });
  }
  return commits;
}

/** `git log` with the given revision/limit arguments (pathspec after `--` when given). */
export async function log(dir: string, args: readonly string[], path?: string): Promise<CommitInfo[]> {
  const full = [
    '--literal-pathspecs',
    'log',
    `--format=${FORMAT}`,
    ...args,
    ...(path !== undefined ? ['--', path] : []),
  ];
  return parseLog(await git(dir, full));
}

/** Counts commits reachable from `rev` (optionally limited to `path`). */
export async function countCommits(dir: string, revs: readonly string[], path?: string): Promise<number> {
  const out = await git(dir, [
    '--literal-pathspecs',
    'rev-list',
    '--count',
    ...revs,
    ...(path !== undefined ? ['--', path] : []),
  ]);
  return Number(out.trim());
}
