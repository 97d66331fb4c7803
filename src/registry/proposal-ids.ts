// Ids and hashes of proposals: the only randomness and hashing the proposal service needs.
import { createHash, randomBytes } from 'node:crypto';
import { changeDigestInput } from '../core/index.js';

/** sha256 of the canonical change, as stored in `hash`. */
export function proposalHash(p: Parameters<typeof changeDigestInput>[0]): string {
  return `sha256:${createHash('sha256').update(changeDigestInput(p)).digest('hex')}`;
}

const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';

/** A fresh unguessable id: `p` and 24 base32 characters (120 random bits). */
export function newProposalId(): string {
  const bytes = randomBytes(24);
  let s = 'p';
  for (const b of bytes) s += BASE32[b & 31];
  return s;
}
