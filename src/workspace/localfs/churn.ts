// Per-commit numstat over the last commits of HEAD touching a prefix (`git log --numstat -z`, no renames, no merges'
// diffs), so the filter can drop hidden files and recount commits.
import type { ChurnCommit, ChurnEntry, ChurnListing, WsResult } from '../types.js';
import { runFailure, wsFail, wsOk } from './errors.js';
import { wtGit, type WtContext } from './git.js';
import { blobTexts } from './links.js';
import { gitTokens, utf8Path } from './tokens.js';

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
    current.files.push({
      path: m[3] as string,
      additions: binary ? 0 : Number(m[1]),
      deletions: binary ? 0 : Number(m[2]),
      binary,
    });
  }
  // A cut listing may end inside a commit's numstat: that commit is dropped rather than reported short.
  if (truncated) commits.pop();
  return { commits: commits as ChurnCommit[], truncated };
}

/**
 * The checks both churn readers make before walking history: the window and the prefix, then HEAD. Undefined means
 * go on; otherwise the answer (a refusal, or an empty listing on an unborn branch).
 */
async function churnStart(
  ctx: WtContext,
  prefix: string,
  sinceCommits: number,
): Promise<WsResult<ChurnListing> | undefined> {
  if (!Number.isInteger(sinceCommits) || sinceCommits < 1 || sinceCommits > 10_000)
    return wsFail('invalid', 'The window is 1 to 10000 commits.');
  if (prefix.includes('\0') || prefix.startsWith('/')) return wsFail('invalid', 'A prefix is a repository path.');
  const head = await wtGit(ctx, ['rev-parse', '-q', '--verify', 'HEAD^{commit}'], 'reading HEAD');
  if (!head.ok) return head;
  return head.run.code !== 0 ? wsOk({ commits: [], truncated: false }) : undefined;
}

/** Numstat of the last `sinceCommits` commits of HEAD touching `prefix` (`''`: the whole repository). */
export async function readChurn(ctx: WtContext, prefix: string, sinceCommits: number): Promise<WsResult<ChurnListing>> {
  const start = await churnStart(ctx, prefix, sinceCommits);
  if (start !== undefined) return start;
  const args = [
    'log',
    `-n${sinceCommits}`,
    '--no-renames',
    '--diff-merges=off',
    '--no-ext-diff',
    '--no-textconv',
    '--numstat',
    '-z',
    '--format=%x01%H',
    'HEAD',
    '--',
    ...(prefix === '' ? [] : [prefix]),
  ];
  const r = await wtGit(ctx, args, 'reading recent history', { partial: true });
  if (!r.ok) return r;
  const truncated = r.run.spawnError === 'too_large';
  if (!truncated && r.run.code !== 0) return runFailure(r.run, 'reading recent history', ctx.log);
  return wsOk(parseChurn(r.run.stdout, truncated));
}

const LINK = '120000';

interface RawSide {
  readonly oldMode: string;
  readonly newMode: string;
  readonly oldOid: string;
  readonly newOid: string;
}

/**
 * Churn over commits touching readable files: `git log --raw --numstat -z` streamed, files `read` refuses dropped on
 * arrival, so the window is counted on commits with a kept file and no hidden record reaches a cap. A commit whose
 * kept files are all links is kept without counting toward the window (the caller judges their targets), so the first
 * `sinceCommits` commits the caller keeps are always among those read.
 */
export async function readChurnCut(
  ctx: WtContext,
  prefix: string,
  sinceCommits: number,
  read: (path: string) => boolean,
): Promise<WsResult<ChurnListing>> {
  const start = await churnStart(ctx, prefix, sinceCommits);
  if (start !== undefined) return start;
  const args = [
    'log',
    '--no-renames',
    '--diff-merges=off',
    '--no-ext-diff',
    '--no-textconv',
    '--no-abbrev',
    '--raw',
    '--numstat',
    '-z',
    '--format=%x01%H',
    'HEAD',
    '--',
    ...(prefix === '' ? [] : [prefix]),
  ];
  type Pending = { sha: string; files: { entry: ChurnEntry; raw: RawSide | undefined }[]; raws: Map<string, RawSide> };
  const commits: Pending[] = [];
  let counted = 0;
  let current: Pending | undefined;
  let rawHead: RawSide | undefined;
  const finish = (): boolean => {
    if (current && current.files.length > 0) {
      commits.push(current);
      if (current.files.some((f) => f.raw === undefined || (f.raw.oldMode !== LINK && f.raw.newMode !== LINK)))
        counted++;
    }
    current = undefined;
    return counted < sinceCommits;
  };
  const doing = 'reading recent history';
  const end = await gitTokens(ctx, args, doing, (tok) => {
    if (tok[0] === 0x01) {
      if (!finish()) return false;
      current = { sha: tok.toString('latin1', 1), files: [], raws: new Map() };
      return true;
    }
    if (!current) return true;
    const body = tok[0] === 0x0a ? tok.subarray(1) : tok;
    if (rawHead !== undefined) {
      // The path of the raw record just read.
      current.raws.set(body.toString('latin1'), rawHead);
      rawHead = undefined;
      return true;
    }
    if (body[0] === 0x3a /* ':' */) {
      const [oldMode = '', newMode = '', oldOid = '', newOid = ''] = body.toString('latin1', 1).split(' ');
      rawHead = { oldMode, newMode, oldOid, newOid };
      return true;
    }
    const t1 = body.indexOf(0x09);
    const t2 = t1 < 0 ? -1 : body.indexOf(0x09, t1 + 1);
    if (t2 < 0) return true;
    const pathBytes = body.subarray(t2 + 1);
    const path = utf8Path(pathBytes);
    if (path === undefined || !read(path)) return true;
    const [a, d] = [body.toString('latin1', 0, t1), body.toString('latin1', t1 + 1, t2)];
    const binary = a === '-';
    current.files.push({
      entry: { path, additions: binary ? 0 : Number(a), deletions: binary ? 0 : Number(d), binary },
      raw: current.raws.get(pathBytes.toString('latin1')),
    });
    return true;
  });
  if (!end.ok) return end;
  if (end.value.kind === 'exit') {
    if (end.value.code !== 0) return wsFail('unavailable', `git failed while ${doing}; try again later.`);
    finish();
  }
  // Link targets of kept link files, as git stores them (blobs, never followed).
  const oids = new Set<string>();
  for (const c of commits) {
    for (const f of c.files) {
      if (f.raw?.oldMode === LINK) oids.add(f.raw.oldOid);
      if (f.raw?.newMode === LINK) oids.add(f.raw.newOid);
    }
  }
  const texts = await blobTexts(ctx, [...oids]);
  if (!texts.ok) return texts;
  const out: ChurnCommit[] = commits.map((c) => ({
    sha: c.sha,
    files: c.files.map(({ entry, raw }) => {
      if (!raw || (raw.oldMode !== LINK && raw.newMode !== LINK)) return entry;
      const links = {
        oldMode: raw.oldMode,
        newMode: raw.newMode,
        ...(raw.oldMode === LINK ? { old: texts.value.get(raw.oldOid) ?? null } : {}),
        ...(raw.newMode === LINK ? { new: texts.value.get(raw.newOid) ?? null } : {}),
      };
      return { ...entry, links };
    }),
  }));
  return wsOk({ commits: out, truncated: false });
}
