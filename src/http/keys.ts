import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { AgentKey, Perimeter } from '../core/index.js';

/** A new agent key: shown once to the operator, stored only as its SHA-256. Keys are 256-bit random, so a plain hash suffices. */
export function issueKey(now: Date): { key: string; record: AgentKey } {
  const id = randomBytes(6).toString('hex');
  const key = `gbk_${id}_${randomBytes(32).toString('base64url')}`;
  return { key, record: { id, hash: hashKey(key), created_at: now.toISOString() } };
}

export function hashKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

/** The id of the perimeter key `given` is, if any; every stored hash is compared, in constant time. */
export function matchingKeyId(p: Perimeter, given: string | undefined): string | undefined {
  if (given === undefined) return undefined;
  const h = Buffer.from(hashKey(given), 'hex');
  let found: string | undefined;
  for (const k of p.keys ?? []) if (timingSafeEqual(h, Buffer.from(k.hash, 'hex')) && found === undefined) found = k.id;
  return found;
}

/** A perimeter as the API shows it: key ids and dates, never hashes. */
export function publicKeys(p: Perimeter): { id: string; created_at: string }[] {
  return (p.keys ?? []).map((k) => ({ id: k.id, created_at: k.created_at }));
}
