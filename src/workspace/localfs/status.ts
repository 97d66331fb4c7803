// `git status --porcelain=v2 -z` parsed into entries. Status never writes `.git/index` here: GIT_OPTIONAL_LOCKS=0 is
// in every git environment (hardening.ts), and `--ignore-submodules=dirty` keeps git from starting a status inside each
// submodule (whose own configuration we do not neutralise); a moved gitlink is still reported.
import type { ChangeCode, StatusEntry, StatusListing, SubmoduleFlags, WsResult } from '../types.js';
import { runFailure, wsFail, wsOk } from './errors.js';
import { wtGit, type WtContext } from './git.js';
import { withLinks } from './links.js';
import { gitTokens, utf8Path } from './tokens.js';

/** The flags that fix what status reports, whatever the repository's `status.*` and `diff.*` settings say. */
export const STATUS_ARGS = [
  'status',
  '--porcelain=v2',
  '-z',
  '--untracked-files=all',
  '--ignored=no',
  '--ignore-submodules=dirty',
  '--find-renames',
  '--no-ahead-behind',
] as const;

const CODES: readonly string[] = ['.', 'M', 'T', 'A', 'D', 'R', 'C', 'U'];

function code(c: string | undefined): ChangeCode {
  if (c === undefined || !CODES.includes(c)) throw new Error(`unexpected status code ${JSON.stringify(c)}`);
  return c as ChangeCode;
}

function submodule(field: string): SubmoduleFlags | null {
  if (field === 'N...') return null;
  if (field.length !== 4 || field[0] !== 'S') throw new Error('unexpected submodule field in status');
  return { commitChanged: field[1] === 'C', trackedChanges: field[2] === 'M', untrackedChanges: field[3] === 'U' };
}

/** Splits `n` space-separated fields off the front of a record; the rest (a path, spaces allowed) is the last. */
function fields(record: string, n: number): string[] {
  const out: string[] = [];
  let rest = record;
  for (let i = 0; i < n; i++) {
    const sp = rest.indexOf(' ');
    if (sp < 0) throw new Error('short status record');
    out.push(rest.slice(0, sp));
    rest = rest.slice(sp + 1);
  }
  out.push(rest);
  return out;
}

/**
 * Parses porcelain-v2 `-z` output (pure). With `truncated`, the last record may be cut: records are only kept when
 * their terminating NUL (and, for a rename, the original path's) arrived.
 */
export function parseStatus(out: Buffer, truncated: boolean): StatusListing {
  const records = out.toString('utf8').split('\0');
  // The element after the last NUL is either '' (complete output) or a cut record.
  records.pop();
  const entries: StatusEntry[] = [];
  for (let i = 0; i < records.length; i++) {
    const rec = records[i] as string;
    const kind = rec.charAt(0);
    switch (kind) {
      case '1': {
        const [, xy = '', sub = '', mH = '', mI = '', mW = '', hH = '', hI = '', path = ''] = fields(rec, 8);
        entries.push({
          kind: 'ordinary',
          path,
          staged: code(xy[0]),
          unstaged: code(xy[1]),
          submodule: submodule(sub),
          modeHead: mH,
          modeIndex: mI,
          modeWorktree: mW,
          oidHead: hH,
          oidIndex: hI,
        });
        break;
      }
      case '2': {
        const [, xy = '', sub = '', mH = '', mI = '', mW = '', hH = '', hI = '', score = '', path = ''] = fields(
          rec,
          9,
        );
        const origPath = records[i + 1];
        if (origPath === undefined) {
          if (truncated) return { entries, truncated };
          throw new Error('rename record without its original path');
        }
        i++;
        entries.push({
          kind: 'renamed',
          path,
          origPath,
          op: score[0] === 'C' ? 'copy' : 'rename',
          score: Number(score.slice(1)),
          staged: code(xy[0]),
          unstaged: code(xy[1]),
          submodule: submodule(sub),
          modeHead: mH,
          modeIndex: mI,
          modeWorktree: mW,
          oidHead: hH,
          oidIndex: hI,
        });
        break;
      }
      case 'u': {
        const [, xy = '', sub = '', m1 = '', m2 = '', m3 = '', mW = '', h1 = '', h2 = '', h3 = '', path = ''] = fields(
          rec,
          10,
        );
        entries.push({
          kind: 'unmerged',
          path,
          xy,
          submodule: submodule(sub),
          modes: [m1, m2, m3, mW],
          oids: [h1, h2, h3],
        });
        break;
      }
      case '?':
        entries.push({ kind: 'untracked', path: rec.slice(2) });
        break;
      case '!':
        entries.push({ kind: 'ignored', path: rec.slice(2) });
        break;
      case '#':
        break;
      default:
        throw new Error(`unexpected status record type ${JSON.stringify(kind)}`);
    }
  }
  return { entries, truncated };
}

/** Status of the working tree, cut at the output cap with `truncated` set. */
export async function readStatus(ctx: WtContext): Promise<WsResult<StatusListing>> {
  const r = await wtGit(ctx, STATUS_ARGS, 'reading the working tree status', { partial: true });
  if (!r.ok) return r;
  const truncated = r.run.spawnError === 'too_large';
  if (!truncated && r.run.code !== 0) return runFailure(r.run, 'reading the working tree status', ctx.log);
  return wsOk(parseStatus(r.run.stdout, truncated));
}

/**
 * Status cut as git prints it: entries none of whose paths `read` accepts (or whose record is not UTF-8) are dropped
 * on arrival, the cap counts the bytes of kept records only, and renames are not detected (git would pair a readable
 * path with a hidden one).
 */
export async function readStatusCut(ctx: WtContext, read: (path: string) => boolean): Promise<WsResult<StatusListing>> {
  const args = STATUS_ARGS.map((a) => (a === '--find-renames' ? '--no-renames' : a));
  const entries: StatusEntry[] = [];
  let bytes = 0;
  let truncated = false;
  const doing = 'reading the working tree status';
  const end = await gitTokens(ctx, args, doing, (tok) => {
    if (utf8Path(tok) === undefined) return true;
    const [e] = parseStatus(Buffer.concat([tok, Buffer.from([0])]), false).entries;
    if (e === undefined || e.kind === 'renamed' || !read(e.path)) return true;
    bytes += tok.length + 1;
    if (bytes > ctx.maxBytes) {
      truncated = true;
      return false;
    }
    entries.push(e);
    return true;
  });
  if (!end.ok) return end;
  if (end.value.kind === 'exit' && end.value.code !== 0)
    return wsFail('unavailable', `git failed while ${doing}; try again later.`);
  const linked = await withLinks(ctx, entries);
  return linked.ok ? wsOk({ entries: linked.value, truncated }) : linked;
}
