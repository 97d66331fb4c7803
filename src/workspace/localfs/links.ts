// What git stores for a symlink side, so the core can judge a link by its target (linkServable) in every listing: a
// committed or staged link's blob text, `readlink` for one on disk. A link is never followed here.
import { lstat, readlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { LinkSides, StatusEntry, WsResult } from '../types.js';
import { runFailure, wsOk } from './errors.js';
import { isFullOid, wtGit, type WtContext } from './git.js';
import { utf8Path } from './tokens.js';

const LINK = '120000';

/** Texts of the link blobs `oids` name (one `cat-file --batch`); null for a text that is not UTF-8. */
export async function blobTexts(
  ctx: WtContext,
  oids: readonly string[],
): Promise<WsResult<Map<string, string | null>>> {
  const out = new Map<string, string | null>();
  if (oids.length === 0) return wsOk(out);
  const r = await wtGit(ctx, ['cat-file', '--batch'], 'reading link targets', {
    input: oids.map((o) => `${o}\n`).join(''),
  });
  if (!r.ok) return r;
  if (r.run.code !== 0) return runFailure(r.run, 'reading link targets', ctx.log);
  const buf = r.run.stdout;
  let at = 0;
  while (at < buf.length) {
    const nl = buf.indexOf(0x0a, at);
    if (nl < 0) break;
    const [oid = '', type = '', size = ''] = buf.toString('latin1', at, nl).split(' ');
    at = nl + 1;
    if (type !== 'blob') continue;
    const n = Number(size);
    out.set(oid, utf8Path(buf.subarray(at, at + n)) ?? null);
    at += n + 1;
  }
  return wsOk(out);
}

/** The target text of the link at `path` on disk (readlink: never followed), or undefined when it is not a link. */
async function diskLink(root: string, path: string): Promise<string | null | undefined> {
  const abs = join(root, path);
  const st = await lstat(abs).catch(() => null);
  if (!st?.isSymbolicLink()) return undefined;
  const target = await readlink(abs, { encoding: 'buffer' }).catch(() => null);
  return target === null ? null : (utf8Path(Buffer.from(target)) ?? null);
}

/** Adds the link sides of kept entries: what git stores for each side that is a symlink. */
export async function withLinks(ctx: WtContext, entries: readonly StatusEntry[]): Promise<WsResult<StatusEntry[]>> {
  const oids = new Set<string>();
  for (const e of entries) {
    if (e.kind !== 'ordinary') continue;
    if (e.modeHead === LINK && isFullOid(e.oidHead)) oids.add(e.oidHead);
    if (e.modeIndex === LINK && isFullOid(e.oidIndex)) oids.add(e.oidIndex);
  }
  const texts = await blobTexts(ctx, [...oids]);
  if (!texts.ok) return texts;
  const out: StatusEntry[] = [];
  for (const e of entries) {
    if (e.kind === 'untracked') {
      const wt = await diskLink(ctx.root, e.path);
      out.push(wt === undefined ? e : { ...e, links: { worktree: wt } });
      continue;
    }
    if (e.kind !== 'ordinary' || ![e.modeHead, e.modeIndex, e.modeWorktree].includes(LINK)) {
      out.push(e);
      continue;
    }
    const links: { head?: string | null; index?: string | null; worktree?: string | null } = {};
    if (e.modeHead === LINK) links.head = texts.value.get(e.oidHead) ?? null;
    if (e.modeIndex === LINK) links.index = texts.value.get(e.oidIndex) ?? null;
    if (e.modeWorktree === LINK) {
      const wt = await diskLink(ctx.root, e.path);
      // Changed since git looked: not a link any more, so nothing on disk vouches for a readable target.
      links.worktree = wt ?? null;
    }
    out.push({ ...e, links: links as LinkSides });
  }
  return wsOk(out);
}
