import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { agentOf, defaultAgentName, type AgentKey, type Perimeter } from '../core/index.js';

/**
 * A new agent key: shown once to the operator, stored only as its SHA-256. Keys are 256-bit random, so a plain hash
 * suffices. The key names `agent`, or a generated agent `key-<keyId>` when none is given.
 */
export function issueKey(now: Date, agent?: string): { key: string; record: AgentKey } {
  const id = randomBytes(6).toString('hex');
  const key = `gbk_${id}_${randomBytes(32).toString('base64url')}`;
  return {
    key,
    record: { id, hash: hashKey(key), created_at: now.toISOString(), agent: agent ?? defaultAgentName(id) },
  };
}

export function hashKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

/** The perimeter key `given` is, if any; every stored hash is compared, in constant time. */
export function matchingKey(p: Perimeter, given: string | undefined): AgentKey | undefined {
  if (given === undefined) return undefined;
  const h = Buffer.from(hashKey(given), 'hex');
  let found: AgentKey | undefined;
  for (const k of p.keys ?? []) if (timingSafeEqual(h, Buffer.from(k.hash, 'hex')) && found === undefined) found = k;
  return found;
}

/** A perimeter's keys as the API shows them: key ids, agents and dates, never hashes. */
export function publicKeys(p: Perimeter): { id: string; agent: string; created_at: string }[] {
  return (p.keys ?? []).map((k) => ({ id: k.id, agent: agentOf(k), created_at: k.created_at }));
}
