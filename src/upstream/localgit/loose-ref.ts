// A branch head read straight from its loose ref file: no round trip to `cat-file`, which on a busy two-core machine
// was most of what a repeated read cost above the protocol floor (issue 24). git's files backend resolves a full ref
// name to its loose file before anything else (an existing ref answers for itself, whatever DWIM could expand), and
// replaces that file by rename, so one read sees the old or the new id, never a mix. Anything else — no loose file
// (a packed ref), a symbolic ref, a symlink, a reftable repository, content git would call broken — answers
// undefined and the caller asks git, as before.
import { closeSync, constants, openSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** A loose ref's whole content when it holds an object id: the id and one newline. */
const LOOSE_ID = /^([0-9a-f]{40}|[0-9a-f]{64})\n$/;

/** Longer than any loose ref holding an id (64 hex digits and a newline): more means it is something else. */
const READ_BYTES = 80;

/**
 * The id the loose ref `name` (a full ref name that passed `isRefName`, so no `..` can climb out) holds under the
 * common git dir, or undefined when git must be asked. The id's object is not looked up, as `branchHead` never did.
 */
export function readLooseRef(commonDir: string, name: string): string | undefined {
  // A reftable repository may keep stale files of the old backend: only git can read it.
  if (statSync(join(commonDir, 'reftable'), { throwIfNoEntry: false }) !== undefined) return undefined;
  let fd: number;
  try {
    fd = openSync(join(commonDir, name), constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch {
    return undefined;
  }
  try {
    const buf = Buffer.allocUnsafe(READ_BYTES);
    let at = 0;
    for (let n = 1; n > 0 && at < READ_BYTES; at += n) n = readSync(fd, buf, at, READ_BYTES - at, at);
    return LOOSE_ID.exec(buf.toString('latin1', 0, at))?.[1];
  } catch {
    // A directory (`refs/heads/a` when `a/b` exists) or an unreadable file.
    return undefined;
  } finally {
    closeSync(fd);
  }
}
