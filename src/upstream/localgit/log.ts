// Commit summaries from `git log -z`. Records are framed by a per-call random marker, because file names in the
// name list are repository content (an agent can commit any name) and must not be able to forge a record.
import { randomBytes } from 'node:crypto';
import type { CommitSummary, Person } from '../../core/model.js';
import { gitFailure, ok, type Failed } from './errors.js';
import { runGit } from '../../gitcli/run.js';
import type { Repo } from './repo.js';
import { displayName, parseCommitObject, type RawTreeEntry } from '../../gitcli/tree-objects.js';

const FIELDS = ['%H', '%P', '%an', '%ae', '%at', '%cn', '%ce', '%ct', '%B'];

/** Seconds since the epoch as GitHub prints dates: UTC, no fraction. */
export function isoDate(epochSeconds: string): string {
  return new Date(Number(epochSeconds) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** Strips the single trailing newline git adds after a message body. */
function message(raw: string): string {
  return raw.replace(/\n+$/, '');
}

/** Runs `git log` with `args` (revisions, options, `--` pathspecs) and parses summaries with their touched files. */
export async function logSummaries(
  repo: Repo,
  args: readonly string[],
  withFiles: boolean,
): Promise<{ ok: true; value: CommitSummary[] } | Failed> {
  const mark = randomBytes(16).toString('hex');
  const format = `--format=%x00S${mark}%x00${FIELDS.join('%x00')}%x00E${mark}%x00`;
  // Files are every path touched against the first parent, without rename pairing; --full-diff lists them all
  // even when pathspecs selected the commit. Merges get theirs below: any --diff-merges option would also stop
  // git from simplifying away merges that did not touch the pathspecs.
  const fileArgs = withFiles ? ['--name-only', '--no-renames', '--full-diff', '--root'] : [];
  const run = await runGit(['log', '-z', '--no-color', '--no-show-signature', format, ...fileArgs, ...args], repo.call);
  if (run.code !== 0) return gitFailure(run, 'listing commits', repo.log);
  const out = run.stdout.toString('utf8');
  const start = `\0S${mark}\0`;
  const end = `\0E${mark}\0`;
  const commits: CommitSummary[] = [];
  for (const chunk of out.split(start)) {
    if (chunk === '' || chunk === '\0') continue;
    const e = chunk.indexOf(end);
    if (e < 0) throw new Error('git log record without its end marker');
    const [sha, parents, an, ae, at, cn, ce, ct, body] = chunk.slice(0, e).split('\0');
    if (sha === undefined || body === undefined || at === undefined || ct === undefined)
      throw new Error('short git log record');
    const author: Person = { name: an ?? '', email: ae ?? '', date: isoDate(at) };
    const committer: Person = { name: cn ?? '', email: ce ?? '', date: isoDate(ct) };
    const summary = { sha, message: message(body), author, committer, parents: parents ? parents.split(' ') : [] };
    if (!withFiles) {
      commits.push(summary);
      continue;
    }
    // After the marker: nothing for a commit without changes, else "\0\n" then NUL-terminated names.
    const names = chunk.slice(e + end.length).split('\0');
    const files: string[] = [];
    let first = true;
    for (const n of names) {
      if (n === '') continue;
      files.push(first && n.startsWith('\n') ? n.slice(1) : n);
      first = false;
    }
    if (summary.parents.length > 1) {
      const merged = await mergeFiles(repo, summary.parents[0]!, sha);
      if (!merged.ok) return merged;
      files.push(...merged.value);
    }
    commits.push({ ...summary, files });
  }
  return ok(commits);
}

/** What a merge brought in: the paths that differ from its first parent (`diff-tree -r --name-only --no-renames`). */
async function mergeFiles(
  repo: Repo,
  firstParent: string,
  merge: string,
): Promise<{ ok: true; value: string[] } | Failed> {
  const trees = await repo.reader.info([`${firstParent}^{tree}`, `${merge}^{tree}`]);
  const [a, b] = trees.map((t) => {
    if (!t.found) throw new Error('a listed commit has no tree');
    return t.sha;
  });
  const out: string[] = [];
  await changedPaths(repo, a!, b!, '', out);
  return ok(out);
}

/**
 * Paths that differ between trees `a` and `b`, files only, in git's order: what `diff-tree -r --name-only
 * --no-renames a b` prints, read through the object reader (no process).
 */
export async function treeChanges(repo: Repo, a: string, b: string): Promise<string[]> {
  const out: string[] = [];
  await changedPaths(repo, a, b, '', out);
  return out;
}

const isDir = (e: RawTreeEntry | undefined) => e?.mode === '040000';
/** git's tree order: a directory sorts as its name followed by '/'; latin1 strings compare byte by byte. */
const sortKey = (e: RawTreeEntry) => (isDir(e) ? `${e.rawName}/` : e.rawName);

/** Every leaf below tree `sha`, prefixed. */
async function allLeaves(repo: Repo, sha: string, prefix: string, out: string[]): Promise<void> {
  const t = await repo.trees.tree(sha);
  if (!t) throw new Error('a tree listed in a commit is missing');
  for (const e of t.entries) {
    const path = prefix + displayName(e.rawName);
    if (isDir(e)) await allLeaves(repo, e.sha, `${path}/`, out);
    else out.push(path);
  }
}

/** Paths that differ between trees `a` and `b`, in git's order; equal subtrees are skipped by id. */
async function changedPaths(repo: Repo, a: string, b: string, prefix: string, out: string[]): Promise<void> {
  const [ta, tb] = await repo.trees.trees([a, b]);
  if (!ta || !tb) throw new Error('a tree listed in a commit is missing');
  let i = 0;
  let j = 0;
  while (i < ta.entries.length || j < tb.entries.length) {
    const ea = ta.entries[i];
    const eb = tb.entries[j];
    const ka = ea ? sortKey(ea) : undefined;
    const kb = eb ? sortKey(eb) : undefined;
    const only = kb === undefined || (ka !== undefined && ka < kb) ? 'a' : ka === undefined || kb < ka ? 'b' : 'both';
    const e = only === 'b' ? eb! : ea!;
    const path = prefix + displayName(e.rawName);
    if (only === 'both') {
      i++;
      j++;
      if (ea!.sha === eb!.sha && ea!.mode === eb!.mode) continue;
      if (isDir(ea)) await changedPaths(repo, ea!.sha, eb!.sha, `${path}/`, out);
      else out.push(path);
      continue;
    }
    if (only === 'a') i++;
    else j++;
    if (isDir(e)) await allLeaves(repo, e.sha, `${path}/`, out);
    else out.push(path);
  }
}

/**
 * One commit's summary read through the object reader (no process); undefined when it declares a message encoding,
 * which `git log` would re-encode (the caller asks git then).
 */
export async function readSummary(repo: Repo, sha: string): Promise<CommitSummary | undefined> {
  const [read] = await repo.reader.contents([sha], MAX_COMMIT_BYTES);
  if (!read || read.kind !== 'object' || read.type !== 'commit') return undefined;
  const c = parseCommitObject(read.bytes);
  if (c.encoding !== undefined && c.encoding.toLowerCase() !== 'utf-8' && c.encoding.toLowerCase() !== 'utf8')
    return undefined;
  return {
    sha: read.sha,
    message: message(c.message),
    author: { name: c.author.name, email: c.author.email, date: isoDate(c.author.epoch) },
    committer: { name: c.committer.name, email: c.committer.email, date: isoDate(c.committer.epoch) },
    parents: [...c.parents],
  };
}

/** A commit object larger than this (a huge message) is read by `git log` instead. */
const MAX_COMMIT_BYTES = 16 * 1024 * 1024;
