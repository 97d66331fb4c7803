// A cheap proof that no ref could stand in for an exact ref name under git's DWIM rules. `cat-file` resolves a name
// like `refs/heads/x` by trying it and then `refs/<name>`, `refs/tags/<name>`, `refs/heads/<name>`,
// `refs/remotes/<name>` and `refs/remotes/<name>/HEAD` (refs.c `ref_rev_parse_rules`): when the exact ref is missing,
// one of those would answer in its place. Every such expansion of a `refs/…` name starts with one of four prefixes,
// so when the files backend holds no loose ref under them and packed-refs names none, git's answer for the name can
// only be the name's own. The proof is re-taken in every event-loop turn that looks a name up (a few `stat`s;
// packed-refs is re-read only when its inode, size or times change), before the lookup's line goes to git, so a
// shadow made at any moment is honoured by the next lookup. (What no check outside git can close: a shadow made, and
// the exact ref deleted, in the instant between the proof and git reading the line — the old five extra lines had
// the mirror window, a shadow removed between git reading the name and reading the expansions.)
import { closeSync, fstatSync, openSync, readdirSync, readSync, statSync, type Stats } from 'node:fs';
import { join } from 'node:path';

/** The prefixes every DWIM expansion of a `refs/…` name starts with. */
const SHADOW_PREFIXES = ['refs/refs/', 'refs/tags/refs/', 'refs/heads/refs/', 'refs/remotes/refs/'] as const;

/**
 * A packed-refs larger than this is not scanned (the lookup asks git the long way instead). The scan is synchronous,
 * on the event loop, each time the file changes: a few MiB is a few milliseconds, tens of MiB would stall every
 * perimeter that long.
 */
const MAX_PACKED_REFS_BYTES = 4 * 1024 * 1024;

/** Answers whether a DWIM shadow of some `refs/…` name could exist in one repository right now. */
export interface ShadowProof {
  /**
   * True when no ref named `refs/refs/…`, `refs/tags/refs/…`, `refs/heads/refs/…` or `refs/remotes/refs/…` exists
   * now (files backend only: false for a reftable repository, or when anything cannot be read).
   */
  clear(): boolean;
}

/** What a stat says about a path: absent, or an identity that changes whenever git replaces or rewrites the file. */
function identity(s: Stats | undefined): string {
  return s === undefined ? 'absent' : `${s.ino}:${s.size}:${s.mtimeMs}:${s.ctimeMs}`;
}

/**
 * A directory's timestamps can move in steps of a clock tick: an emptiness seen less than this long after its last
 * change is not kept (an entry added within the same tick could leave the times unchanged), as git does for racy
 * index entries.
 */
const RACY_MS = 1000;

/**
 * Whether loose refs could live under the directory `path`: false when it is absent, or empty and unchanged since it
 * was last seen empty. (git leaves an emptied first-level directory such as `refs/refs` behind when it packs or
 * deletes the refs in it; a new entry in an empty directory changes its times.)
 */
function looseChecker(path: string): () => boolean {
  let emptyAs: string | undefined;
  return () => {
    const s = statSync(path, { throwIfNoEntry: false });
    if (s === undefined) return false;
    const id = identity(s);
    if (id === emptyAs) return false;
    const seenAt = Date.now();
    if (!s.isDirectory() || readdirSync(path).length > 0) return true;
    // An entry made later moves mtime past this one; ctime (in the identity) catches times set back by hand.
    if (s.mtimeMs < seenAt - RACY_MS) emptyAs = id;
    return false;
  };
}

/** True when packed-refs text names a ref under one of the shadow prefixes (a ref name never holds a space). */
function packedHasShadow(text: Buffer): boolean {
  return SHADOW_PREFIXES.some((p) => text.includes(` ${p}`));
}

/**
 * Reads packed-refs through one descriptor, so the identity kept is the one of the bytes scanned (git replaces the
 * file by rename, never in place); undefined when it is missing or too large to scan.
 */
function scanPacked(path: string): { id: string; shadow: boolean } | undefined {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { id: 'absent', shadow: false };
    throw err;
  }
  try {
    const s = fstatSync(fd);
    if (s.size > MAX_PACKED_REFS_BYTES) return undefined;
    const buf = Buffer.allocUnsafe(s.size);
    let at = 0;
    while (at < s.size) {
      const n = readSync(fd, buf, at, s.size - at, at);
      if (n === 0) break;
      at += n;
    }
    return { id: identity(s), shadow: packedHasShadow(buf.subarray(0, at)) };
  } finally {
    closeSync(fd);
  }
}

/** The proof for the refs of the repository whose common git dir is `commonDir` (where shared refs live). */
export function createShadowProof(commonDir: string): ShadowProof {
  // Per-worktree refs (refs/worktree, refs/bisect, refs/rewritten) live in a linked worktree's own git dir; every
  // shadow prefix is a shared ref, stored (loose or packed) under the common dir only.
  const reftable = join(commonDir, 'reftable');
  const packedRefs = join(commonDir, 'packed-refs');
  const loose = SHADOW_PREFIXES.map((p) => looseChecker(join(commonDir, p.slice(0, -1))));
  let packed: { id: string; shadow: boolean } | undefined;
  const prove = (): boolean => {
    try {
      // A reftable repository keeps refs where no stat can see them: never proven, git is asked the long way.
      if (statSync(reftable, { throwIfNoEntry: false }) !== undefined) return false;
      if (loose.some((holds) => holds())) return false;
      const now = identity(statSync(packedRefs, { throwIfNoEntry: false }));
      if (packed?.id !== now) {
        packed = scanPacked(packedRefs);
        // Replaced between the stat and the read: the next lookup scans again.
        if (packed?.id !== now) return false;
      }
      return !packed.shadow;
    } catch {
      return false;
    }
  };
  // Lookups of one event-loop turn share one proof: every line of the turn is written after it (at once to an idle
  // reader, or with the turn's batch to a busy one), so the proof is still taken before any of them is read.
  let turn: boolean | undefined;
  return {
    clear() {
      if (turn === undefined) {
        turn = prove();
        setImmediate(() => (turn = undefined));
      }
      return turn;
    },
  };
}
