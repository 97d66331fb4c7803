// Sealed change cursors: AES-256-GCM under the server's cursor key (a 0600 file of the state dir, passed in), with a
// random IV per cursor, so a cursor is opaque, cannot be forged or edited, and two cursors for the same commit differ
// (equality would tell an agent that its branch moved only through commits it cannot see).
// Result ids (the `search`/`fetch` aliases) are sealed under keys derived from the same key, deterministically: the IV
// is a MAC of the plaintext (a synthetic IV), so one file on one perimeter and branch always gets the same id, and an
// answer is a function of what the agent may read (a random IV would make two identical searches differ).
import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';
import type { CursorSeal } from '../registry/index.js';

const IV_BYTES = 12;
const TAG_BYTES = 16;
const PREFIX = 'gbc1.';
// Binds the ciphertext to its purpose: a key reused elsewhere could not turn another sealed value into a cursor.
const AAD = Buffer.from('git-blinder change cursor v1');
const ID_PREFIX = 'gbi1.';
const ID_AAD = Buffer.from('git-blinder result id v1');

/** A subkey of `key` for one purpose, so result ids never share a GCM key (or IVs) with cursors. */
const subkey = (key: Buffer, purpose: string): Buffer => createHmac('sha256', key).update(purpose).digest();

/** AES-256-GCM open of `raw` (IV, ciphertext, tag) under `key` and `aad`; undefined for anything not sealed so. */
function openRaw(key: Buffer, aad: Buffer, raw: Buffer): string | undefined {
  if (raw.length < IV_BYTES + TAG_BYTES + 1) return undefined;
  try {
    const d = createDecipheriv('aes-256-gcm', key, raw.subarray(0, IV_BYTES));
    d.setAAD(aad);
    d.setAuthTag(raw.subarray(raw.length - TAG_BYTES));
    return Buffer.concat([d.update(raw.subarray(IV_BYTES, raw.length - TAG_BYTES)), d.final()]).toString('utf8');
  } catch {
    return undefined;
  }
}

/** Builds the sealer over a 32-byte key. */
export function cursorSeal(key: Uint8Array): CursorSeal {
  if (key.length !== 32) throw new Error('cursor key must be 32 bytes');
  const k = Buffer.from(key);
  const idKey = subkey(k, 'git-blinder result id: encryption');
  const ivKey = subkey(k, 'git-blinder result id: synthetic iv');
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
      return openRaw(k, AAD, Buffer.from(token.slice(PREFIX.length), 'base64url'));
    },
    sealId(plain) {
      const iv = createHmac('sha256', ivKey).update(plain, 'utf8').digest().subarray(0, IV_BYTES);
      const c = createCipheriv('aes-256-gcm', idKey, iv);
      c.setAAD(ID_AAD);
      const body = Buffer.concat([c.update(plain, 'utf8'), c.final()]);
      return ID_PREFIX + Buffer.concat([iv, body, c.getAuthTag()]).toString('base64url');
    },
    openId(token) {
      if (!token.startsWith(ID_PREFIX) || token.length > 8192) return undefined;
      const raw = Buffer.from(token.slice(ID_PREFIX.length), 'base64url');
      const plain = openRaw(idKey, ID_AAD, raw);
      // A synthetic IV must be the MAC of what it seals: anything else was not made by sealId.
      if (plain === undefined) return undefined;
      const iv = createHmac('sha256', ivKey).update(plain, 'utf8').digest().subarray(0, IV_BYTES);
      return iv.equals(raw.subarray(0, IV_BYTES)) ? plain : undefined;
    },
  };
}
