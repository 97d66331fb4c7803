// One stored line checked on its own: form, canonical bytes, hash and signature. The file verifier (verify.ts) and the
// store-copy verifier (verify-copy.ts) both call it, so they judge an entry the same way; position and chain are theirs.
import type { KeyObject } from 'node:crypto';
import { canonicalJson } from './canonical.js';
import { verifySignature } from './keys.js';
import { CheckpointRecord, EventRecord, hashedBytes, sha256Label, signedBytes, type LedgerRecord } from './record.js';

/** Why a line fails on its own. */
export type EntryProblem = 'malformed' | 'hash_mismatch' | 'unknown_key' | 'bad_signature' | 'unsigned';

/** A line that holds: the record, and whether it was signed and its signature checked. */
export type CheckedEntry =
  | { ok: true; rec: LedgerRecord; signed: boolean; sigChecked: boolean }
  | { ok: false; code: EntryProblem; message: string };

const bad = (code: EntryProblem, message: string): CheckedEntry => ({ ok: false, code, message });

/** Checks one line (without its newline). `keys` empty and not `requireSigned`: a signature is counted, not checked. */
export function checkEntry(text: string, keys: ReadonlyMap<string, KeyObject>, requireSigned: boolean): CheckedEntry {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return bad('malformed', 'line is not JSON');
  }
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return bad('malformed', 'line is not an object');
  const obj = raw as Record<string, unknown>;
  // Lines are written canonically, so any byte edit that keeps the same JSON value still shows.
  if (canonicalJson(obj) !== text) return bad('malformed', 'line is not in canonical form');
  const schema = obj['kind'] === 'checkpoint' ? CheckpointRecord : obj['kind'] === 'event' ? EventRecord : undefined;
  if (schema === undefined) return bad('malformed', 'unknown entry kind');
  const parsed = schema.safeParse(obj);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return bad('malformed', `invalid field ${issue?.path.join('.') ?? '?'}: ${issue?.message ?? ''}`);
  }
  const rec = parsed.data;
  if (sha256Label(hashedBytes(obj)) !== rec.hash) return bad('hash_mismatch', 'entry hash does not match its content');
  if (rec.sig === undefined) {
    if (rec.key_id !== undefined) return bad('malformed', 'key_id without sig');
    if (requireSigned) return bad('unsigned', 'entry is not signed');
    return { ok: true, rec, signed: false, sigChecked: false };
  }
  if (rec.key_id === undefined) return bad('malformed', 'sig without key_id');
  if (keys.size === 0 && !requireSigned) return { ok: true, rec, signed: true, sigChecked: false };
  const key = keys.get(rec.key_id);
  if (key === undefined) return bad('unknown_key', `no public key for key id ${rec.key_id}`);
  if (!verifySignature(key, signedBytes(obj), rec.sig)) return bad('bad_signature', 'signature does not verify');
  return { ok: true, rec, signed: true, sigChecked: true };
}
