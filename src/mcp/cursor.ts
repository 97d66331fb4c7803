// Sealed change cursors: AES-256-GCM under the server's cursor key (a 0600 file of the state dir, passed in), with a
// random IV per cursor, so a cursor is opaque, cannot be forged or edited, and two cursors for the same commit differ
// (equality would tell an agent that its branch moved only through commits it cannot see).
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { CursorSeal } from '../registry/index.js';

const IV_BYTES = 12;
const TAG_BYTES = 16;
const PREFIX = 'gbc1.';
// Binds the ciphertext to its purpose: a key reused elsewhere could not turn another sealed value into a cursor.
const AAD = Buffer.from('git-blinder change cursor v1');

/** Builds the sealer over a 32-byte key. */
export function cursorSeal(key: Uint8Array): CursorSeal {
  if (key.length !== 32) throw new Error('cursor key must be 32 bytes');
  const k = Buffer.from(key);
  return {
    seal(plain) {
      const iv = randomBytes(IV_BYTES);
      const c = createCipheriv('aes-256-gcm', k, iv);
      c.setAAD(AAD);
      const body = Buffer.concat([c.update(plain, 'utf8'), c.final()]);
      return PREFIX + Buffer.concat([iv, body, c.getAuthTag()]).toString('base64url');
    },
    open(token) {
      if (!token.startsWith(PREFIX) || token.length > 4096) return undefined;
      const raw = Buffer.from(token.slice(PREFIX.length), 'base64url');
      if (raw.length < IV_BYTES + TAG_BYTES + 1) return undefined;
      try {
        const d = createDecipheriv('aes-256-gcm', k, raw.subarray(0, IV_BYTES));
        d.setAAD(AAD);
        d.setAuthTag(raw.subarray(raw.length - TAG_BYTES));
        return Buffer.concat([d.update(raw.subarray(IV_BYTES, raw.length - TAG_BYTES)), d.final()]).toString('utf8');
      } catch {
        return undefined;
      }
    },
  };
}
