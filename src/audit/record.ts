// What one ledger line holds: the caller's event (AuditEvent), its stored form (EventRecord), the checkpoint that opens a
// file after rotation (CheckpointRecord), and sealing (hash, then optional signature). Schemas first, types derived.
import { createHash, createHmac } from 'node:crypto';
import * as z from 'zod/v4';
import { canonicalJson, toJsonValue } from './canonical.js';
import type { Signer } from './keys.js';

/** Where the call came in: an agent perimeter, the operator's root surface, the HTTP /api, or the /ui page's sign-in. */
export const Surface = z.enum(['agent', 'root', 'api', 'web']);
export type Surface = z.infer<typeof Surface>;

/** The policy outcome as the caller saw it; `invisible` is recorded even though the agent saw "not found". */
export const AuditVerdict = z.enum(['allow', 'deny', 'invisible', 'error']);
export type AuditVerdict = z.infer<typeof AuditVerdict>;

const Label = (max: number) => z.string().min(1).max(max);
const Count = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);

/**
 * One audited call, as the MCP/HTTP layer reports it. `agent` is the agent id of the call's key (issue 23); `client`
 * is what the MCP client declared about itself: a label beside it, never authorization.
 */
export const AuditEvent = z.strictObject({
  perimeter: Label(256).optional(),
  branch: Label(256).optional(),
  surface: Surface,
  tool: Label(256),
  agent: Label(64).optional(),
  client: z.string().max(256).optional(),
  verdict: AuditVerdict,
  result: Label(64),
  bytes: z.number().min(0).max(Number.MAX_SAFE_INTEGER),
  durationMs: z.number().min(0).max(Number.MAX_SAFE_INTEGER),
  commit: Label(128).optional(),
  paths: z.array(z.string()).optional(),
  args: z.unknown().optional(),
  /** When the event happened (stored as `ts`); absent, the time of the write is used. */
  at: z.iso.datetime().optional(),
  /** Identical refusals merged into this entry while it waited (stored as `count` when above 1). */
  count: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER).optional(),
  /** When the last merged repetition happened (stored as `last_ts`). */
  lastAt: z.iso.datetime().optional(),
  /** The network source of an operator credential check (IPv6: its /64); stored in clear, it names no repository content. */
  source: z.string().min(1).max(64).optional(),
});
export type AuditEvent = z.infer<typeof AuditEvent>;

/** `hmac-sha256`: paths and args are hex HMACs under the ledger salt; `clear`: stored as given. */
export const Redaction = z.enum(['hmac-sha256', 'clear']);
export type Redaction = z.infer<typeof Redaction>;

const Seq = z.number().int().min(1).max(Number.MAX_SAFE_INTEGER);
const HashLabel = z.string().regex(/^sha256:[0-9a-f]{64}$/);
const Sealing = {
  prev_hash: z.union([z.literal('genesis'), HashLabel]),
  hash: HashLabel,
  key_id: z.string().min(1).max(64).optional(),
  sig: z.string().min(1).max(128).optional(),
};

/** A stored event line. */
export const EventRecord = z.strictObject({
  v: z.literal(1),
  kind: z.literal('event'),
  seq: Seq,
  ts: z.iso.datetime(),
  perimeter: z.string().optional(),
  branch: z.string().optional(),
  surface: Surface,
  tool: z.string(),
  /** The agent id of the call's key; absent on entries written before issue 23 and on operator surfaces. */
  agent: z.string().optional(),
  client: z.string().optional(),
  verdict: AuditVerdict,
  result: z.string(),
  bytes: Count,
  duration_ms: Count,
  commit: z.string().optional(),
  redaction: Redaction,
  salt_id: z.string().optional(),
  paths: z.array(z.string()).optional(),
  args: z.unknown().optional(),
  /** How many identical refusals this one entry stands for (absent: one). */
  count: Count.min(2).optional(),
  last_ts: z.iso.datetime().optional(),
  source: z.string().optional(),
  ...Sealing,
});
export type EventRecord = z.infer<typeof EventRecord>;

/** The first line of every file created by rotation: it names and digests the file before it and continues its chain. */
export const CheckpointRecord = z.strictObject({
  v: z.literal(1),
  kind: z.literal('checkpoint'),
  seq: Seq,
  ts: z.iso.datetime(),
  prev_seq: Seq,
  prev_segment: z.string().min(1),
  prev_digest: HashLabel,
  /** Segments retained after this rotation (the one just closed included); the verifier counts them. */
  retained: Count,
  ...Sealing,
});
export type CheckpointRecord = z.infer<typeof CheckpointRecord>;

/** Any stored line. */
export type LedgerRecord = EventRecord | CheckpointRecord;
/** A record before sealing: everything but `hash`, `sig` and `key_id`. */
export type Unsealed<R extends LedgerRecord> = Omit<R, 'hash' | 'sig' | 'key_id'>;

/** `sha256:` + lowercase hex. */
export function sha256Label(data: Buffer | string): string {
  return `sha256:${createHash('sha256').update(data).digest('hex')}`;
}

/** The bytes the hash covers: canonical JSON without `hash` and `sig` (so `key_id` is covered). */
export function hashedBytes(record: Record<string, unknown>): Buffer {
  const { hash: _h, sig: _s, ...rest } = record;
  return Buffer.from(canonicalJson(rest), 'utf8');
}

/** The bytes the signature covers: canonical JSON with `hash`, without `sig`. */
export function signedBytes(record: Record<string, unknown>): Buffer {
  const { sig: _s, ...rest } = record;
  return Buffer.from(canonicalJson(rest), 'utf8');
}

/** Adds `key_id` (when signing), `hash` and `sig`. Pure apart from the signer. */
export function sealRecord<R extends LedgerRecord>(unsealed: Unsealed<R>, signer?: Signer): R {
  const withKey: Record<string, unknown> = signer ? { ...unsealed, key_id: signer.keyId } : { ...unsealed };
  const hashed = { ...withKey, hash: sha256Label(hashedBytes(withKey)) };
  const sealed = signer ? { ...hashed, sig: signer.sign(signedBytes(hashed)) } : hashed;
  return sealed as unknown as R;
}

/** HMAC of one path under the ledger salt: what a hashed ledger stores, and what an operator computes to search it. */
export function pathDigest(salt: Buffer, path: string): string {
  return createHmac('sha256', salt).update('path\0').update(path, 'utf8').digest('hex');
}

/** HMAC of an argument value (its canonical JSON) under the ledger salt. */
export function argsDigest(salt: Buffer, args: unknown): string {
  return createHmac('sha256', salt)
    .update('args\0')
    .update(canonicalJson(toJsonValue(args)), 'utf8')
    .digest('hex');
}

/** Names a salt without revealing it, so an operator can tell which salt a hashed record used. */
export function saltId(salt: Buffer): string {
  return createHash('sha256').update('git-blinder-audit-salt-id\0').update(salt).digest('hex').slice(0, 16);
}

// Control characters would make a self-reported name misleading in a terminal; they become spaces.
const isControl = (code: number): boolean => code < 0x20 || code === 0x7f;
const clean = (s: string): string => {
  for (let i = 0; i < s.length; i++) {
    if (isControl(s.charCodeAt(i))) return Array.from(s, (ch) => (isControl(ch.charCodeAt(0)) ? ' ' : ch)).join('');
  }
  return s;
};

/** Builds the unsealed stored form of an event: clamps counters, redacts paths and args unless `clear`. */
export function eventBody(
  e: AuditEvent,
  at: { seq: number; ts: string; prevHash: string },
  redact: { mode: Redaction; salt: Buffer; saltId?: string },
): Unsealed<EventRecord> {
  const body: Record<string, unknown> = {
    v: 1,
    kind: 'event',
    seq: at.seq,
    ts: e.at ?? at.ts,
    perimeter: e.perimeter === undefined ? undefined : clean(e.perimeter),
    branch: e.branch === undefined ? undefined : clean(e.branch),
    surface: e.surface,
    tool: clean(e.tool),
    agent: e.agent === undefined ? undefined : clean(e.agent),
    client: e.client === undefined ? undefined : clean(e.client),
    verdict: e.verdict,
    result: clean(e.result),
    bytes: Math.round(e.bytes),
    duration_ms: Math.round(e.durationMs),
    commit: e.commit === undefined ? undefined : clean(e.commit),
    redaction: redact.mode,
    count: e.count !== undefined && e.count > 1 ? e.count : undefined,
    last_ts: e.count !== undefined && e.count > 1 ? e.lastAt : undefined,
    source: e.source === undefined ? undefined : clean(e.source),
    prev_hash: at.prevHash,
  };
  if (redact.mode === 'hmac-sha256') {
    body['salt_id'] = redact.saltId ?? saltId(redact.salt);
    if (e.paths !== undefined) body['paths'] = e.paths.map((p) => pathDigest(redact.salt, p));
    if (e.args !== undefined) body['args'] = argsDigest(redact.salt, e.args);
  } else {
    if (e.paths !== undefined) body['paths'] = [...e.paths];
    if (e.args !== undefined) body['args'] = toJsonValue(e.args);
  }
  for (const k of Object.keys(body)) if (body[k] === undefined) delete body[k];
  return body as Unsealed<EventRecord>;
}
