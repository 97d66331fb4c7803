// Per-commit numstat over the last commits of HEAD touching a prefix (`git log --numstat -z`, no renames, no merges'
// diffs), so the filter can drop hidden files and recount commits.
import type { ChurnCommit, ChurnEntry, ChurnListing, WsResult } from '../types.js';
import { runFailure, wsFail, wsOk } from './errors.js';
import { wtGit, type WtContext } from './git.js';

/** Each commit starts with SOH and its id; SOH is written as a string so the pattern stays free of control escapes. */
const SHA_TOKEN = new RegExp(`^${String.fromCharCode(1)}([0-9a-f]{40}|[0-9a-f]{64})$`);
const NUMSTAT = /^\n?(\d+|-)\t(\d+|-)\t([\s\S]*)$/;

/** Parses `log --format=%x01%H --numstat -z` output (pure); with `truncated` the last commit may be incomplete. */
export function parseChurn(out: Buffer, truncated: boolean): ChurnListing {
  const tokens = out.toString('utf8').split('\0');
  if (truncated) tokens.pop();
  const commits: { sha: string; files: ChurnEntry[] }[] = [];
  for (const t of tokens) {
    const sha = SHA_TOKEN.exec(t);
    if (sha) {
      commits.push({ sha: sha[1] as string, files: [] });
      continue;
    }
    const m = NUMSTAT.exec(t);
    const current = commits[commits.length - 1];
    if (!m || !current) continue;
    const binary = m[1] === '-';
    current.files.push({ path: m[3] as string, additions: binary ? 0 : Number(m[1]), deletions: binary ? 0 : Number(m[2]), binary });
  }
  // A cut listing may end inside a commit's numstat: that commit is dropped rather than reported short.
  if (truncated) commits.pop();
  return { commits: commits as ChurnCommit[], truncated };
}

/** Numstat of the last `sinceCommits` commits of HEAD touching `prefix` (`''`: the whole repository). */
export async function readChurn(ctx: WtContext, prefix: string, sinceCommits: number): Promise<WsResult<ChurnListing>> {
  if (!Number.isInteger(sinceCommits) || sinceCommits < 1 || sinceCommits > 10_000) return wsFail('invalid', 'The window is 1 to 10000 commits.');
  if (prefix.includes('\0') || prefix.startsWith('/')) return wsFail('invalid', 'A prefix is a repository path.');
  const head = await wtGit(ctx, ['rev-parse', '-q', '--verify', 'HEAD^{commit}'], 'reading HEAD');
  if (!head.ok) return head;
  if (head.run.code !== 0) return wsOk({ commits: [], truncated: false });
  const args = ['log', `-n${sinceCommits}`, '--no-renames', '--diff-merges=off', '--no-ext-diff', '--no-textconv', '--numstat', '-z', '--format=%x01%H', 'HEAD', '--', ...(prefix === '' ? [] : [prefix])];
  const r = await wtGit(ctx, args, 'reading recent history', { partial: true });
  if (!r.ok) return r;
  const truncated = r.run.spawnError === 'too_large';
  if (!truncated && r.run.code !== 0) return runFailure(r.run, 'reading recent history', ctx.log);
  return wsOk(parseChurn(r.run.stdout, truncated));
}
