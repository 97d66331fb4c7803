/**
 * The audit ledger: "what did agent X read and write, and what was refused", in a file whose edits can be proven.
 *
 * Using it (the composition root owns the paths and keys; nothing here reads env or argv):
 *
 *   const salt = await loadOrCreateSalt(stateDir);                         // 32 random bytes, 0600, created once
 *   const ledger = await openLedger({ dir: auditDir, salt, signingKey, log }); // rejects on a bad key: fail closed
 *   await ledger.append({ surface: 'agent', perimeter, branch, tool, client, verdict, result, bytes, durationMs, paths });
 *   ledger.state();                                                        // { ok, lastError, entries, failures, ... }
 *   await ledger.close();
 *   const report = await verifyLedger(join(auditDir, 'audit.jsonl'), { publicKeys: { [keyId]: pem }, requireSigned });
 *   for await (const e of queryLedger(file, { perimeter: 'docs', verdict: 'deny', since })) ...
 *   const { exitCode, lines } = await runAuditVerify(['audit.jsonl', '--pubkey', 'key.pub.pem', '--require-signed']);
 *
 * Guarantees and limits:
 * - append() never rejects and never throws into a tool answer; a failure sets state().ok = false, keeps lastError,
 *   bumps failures and calls `log`. Awaiting it means the line is fsynced; not awaiting it is allowed.
 * - `agent` is the agent id of the call's key (issue 23): who made the call. `client` is what the MCP client declared
 *   about itself: a label, never authorization.
 * - Paths and args are stored as hex HMAC-SHA256 under the salt (`redaction: "hmac-sha256"`, plus `salt_id`), so equal
 *   paths correlate and the file leaks nothing without the salt; pathDigest(salt, path) finds a path. `clearPaths`
 *   stores them as given (an event too large for a 256 KiB line is then stored hashed, with a warning).
 * - The chain detects editing, deleting, duplicating or reordering any retained entry, and editing, deleting,
 *   truncating or swapping rotated segments. It cannot detect truncation of the newest entries of the active file or
 *   replacement of the whole retained history without an external anchor: keep `counters.lastHash` elsewhere.
 *   Without signatures anyone can recompute a consistent chain; with them, only the private key's holder can.
 *
 * Files, in `dir` (0700; not group/other writable): the active `audit.jsonl` (0600), rotated segments
 * `audit.jsonl.segment-<first seq, 20 digits>-<last seq, 20 digits>`, and the lock `audit.jsonl.lock` (created with
 * `wx`, holding {pid, host, token, at}; stale when its pid is dead on this host or older than staleLockMs).
 *
 * One line = one canonical JSON object + "\n", at most 256 KiB:
 * - event:      {v:1, kind:"event", seq, ts (ISO), perimeter?, branch?, surface, tool, agent?, client?, verdict,
 *                result, bytes, duration_ms, commit?, redaction, salt_id?, paths?, args?, prev_hash, key_id?, hash, sig?}
 * - checkpoint: {v:1, kind:"checkpoint", seq, ts, prev_seq, prev_segment, prev_digest, retained, prev_hash, key_id?,
 *                hash, sig?} — the first line of every file created by rotation; it continues the chain and names
 *                the segment before it, its SHA-256 file digest and how many segments were retained.
 * - seq runs 1, 2, 3 ... across all files (checkpoints take a number); the first entry has prev_hash "genesis".
 * - canonical JSON: object keys sorted recursively by UTF-8 byte order, arrays in order, no whitespace, strings and
 *   numbers as JSON.stringify prints them. Lines are stored in canonical form, so any byte edit shows.
 * - hash = "sha256:" + hex SHA-256 of canonical(entry without hash and sig) — key_id is covered.
 * - sig  = unpadded base64url Ed25519 over canonical(entry without sig) — the hash is covered.
 * - default key id = hex of the first 8 bytes of the raw 32-byte public key (keyIdOf); any label [A-Za-z0-9._-]{1,64}
 *   works as long as the verifier's map uses the same one, so rotated keys co-exist.
 *
 * Rotation: before an append would push the active file past maxBytes (default 10 MiB), the file is renamed to its
 * segment name, a new active file starts with a checkpoint, then segments beyond `keep` (default 5) are deleted, oldest
 * first (after the checkpoint is durable: a crash leaves an extra segment, never a gap) — but never one whose newest
 * entry is younger than `minAgeMs` (default 30 days): the ledger grows instead and state().retention.held says so.
 * A pruning is recorded as an `audit.prune` event right after the checkpoint. The oldest retained file may therefore
 * start with a checkpoint naming a deleted segment; the verifier accepts that (startsAfterPruning) but checks that at
 * least `retained` segments precede the newest checkpoint.
 *
 * Group commit: the queue drains in batches; each batch holds the lock once, writes all its lines with one write and
 * one fdatasync, and keeps the file open and the chain head in memory for the next batch. Under the lock it checks
 * that the file is still the one it left (inode and size) and otherwise reads the head from disk, repairing a torn
 * tail (a complete record missing its newline gets it; a partial line after a complete one is cut); so several
 * processes can still append to one ledger. Calls pass a `share` (their perimeter): a full share makes submit()'s
 * `admitted` wait (bounded) instead of dropping; any loss counts in state().lost.
 *
 * Several instances (issue 21): each ledger has a stable name (`<dir>/instance`) and a shipper (ship.ts) that reads
 * the files after they are durable and sends the entries, exactly as chained, to the store's copy in batches, moving a
 * per-instance head in the same transaction. Appends never wait on the database; while it is down entries stay on
 * disk, and retention never prunes a segment holding an entry the store has not received. verifyCopy checks every
 * instance's chain from the store's copy (gaps, reordering, edits, a missing tail against the head). The copy keeps
 * what each ledger keeps: the shipper records its retention with the head and sweeps the copy hourly, whole segments
 * at a time on the database's clock, so a pruned copy starts at a checkpoint as a pruned ledger does.
 */
export { canonicalJson } from './canonical.js';
export { keyIdOf, type SigningKeyConfig } from './keys.js';
export {
  openLedger,
  type AppendOptions,
  type AuditLog,
  type Ledger,
  type LedgerOptions,
  type LedgerState,
  type Submitted,
} from './ledger.js';
export { DEFAULT_MIN_AGE_MS, type PruneReport, type Retention } from './writer.js';
export { queryLedger, type LedgerEntry, type QueryFilter } from './query.js';
export {
  AuditEvent,
  AuditVerdict,
  Surface,
  pathDigest,
  argsDigest,
  saltId,
  type CheckpointRecord,
  type EventRecord,
  type Redaction,
} from './record.js';
export { loadOrCreateSalt } from './salt.js';
export { loadOrCreateInstanceId } from './instance.js';
export { startShipper, type ShipState, type Shipper, type ShipperOptions } from './ship.js';
export { verifyCopy, type CopyReport, type CopyVerifyOutcome } from './verify-copy.js';
export {
  verifyLedger,
  type VerifyCounters,
  type VerifyOptions,
  type VerifyProblem,
  type VerifyProblemCode,
  type VerifyReport,
} from './verify.js';
export {
  parseAuditVerifyArgv,
  readPublicKeys,
  runAuditVerify,
  type AuditVerifyOptions,
  type AuditVerifyOutput,
} from './verify-command.js';
