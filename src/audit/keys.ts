// Ed25519 keys through node:crypto only. A key id names the public key so rotated keys can co-exist in one ledger and
// the verifier takes a map key id -> public key.
import { createPrivateKey, createPublicKey, sign, verify, type KeyObject } from 'node:crypto';
import { fail, ok, type Result } from '../core/index.js';

/** What an appender signs with: the key id written into each entry and the PKCS#8 PEM of the private key. */
export interface SigningKeyConfig {
  keyId: string;
  privateKeyPem: string;
}

/** A loaded private key, ready to sign canonical bytes. */
export interface Signer {
  readonly keyId: string;
  sign(bytes: Buffer): string;
}

const KEY_ID = /^[A-Za-z0-9._-]{1,64}$/;
const MAX_PEM = 64 * 1024;
const BASE64URL = /^[A-Za-z0-9_-]+$/;

/** Derives the default key id: lowercase hex of the first 8 bytes of the raw 32-byte Ed25519 public key. */
export function keyIdOf(publicKey: string | KeyObject): string {
  const key = typeof publicKey === 'string' ? createPublicKey(publicKey) : publicKey;
  const der = key.export({ type: 'spki', format: 'der' });
  return der.subarray(der.length - 32, der.length - 24).toString('hex');
}

/** Loads a configured signing key; any doubt is a failure, because a configured key must never degrade to unsigned. */
export function loadSigner(cfg: SigningKeyConfig): Result<Signer, 'invalid_key'> {
  if (typeof cfg.keyId !== 'string' || !KEY_ID.test(cfg.keyId)) {
    return fail('invalid_key', 'The signing key id must be 1-64 characters of letters, digits, ".", "_" or "-".');
  }
  if (typeof cfg.privateKeyPem !== 'string' || cfg.privateKeyPem.trim() === '') {
    return fail('invalid_key', 'The signing key is empty.');
  }
  if (cfg.privateKeyPem.length > MAX_PEM) return fail('invalid_key', 'The signing key is larger than 64 KiB.');
  let key: KeyObject;
  try {
    key = createPrivateKey(cfg.privateKeyPem);
  } catch {
    return fail('invalid_key', 'The signing key is not a readable private key (PKCS#8 PEM expected).');
  }
  if (key.asymmetricKeyType !== 'ed25519') return fail('invalid_key', 'The signing key is not an Ed25519 key.');
  const keyId = cfg.keyId;
  return ok({ keyId, sign: (bytes: Buffer) => sign(null, bytes, key).toString('base64url') });
}

/** Loads the verifier's key map; a key that is not an Ed25519 public key is a usage error, reported by its id. */
export function loadPublicKeys(pems: Record<string, string>): Result<Map<string, KeyObject>, 'invalid_key'> {
  const keys = new Map<string, KeyObject>();
  for (const [id, pem] of Object.entries(pems)) {
    let key: KeyObject;
    try {
      key = createPublicKey(pem);
    } catch {
      return fail('invalid_key', `Public key "${id}" is not a readable public key (SPKI PEM expected).`);
    }
    if (key.asymmetricKeyType !== 'ed25519') return fail('invalid_key', `Public key "${id}" is not an Ed25519 key.`);
    keys.set(id, key);
  }
  return ok(keys);
}

/** Checks an unpadded base64url Ed25519 signature over bytes; malformed signatures are simply invalid. */
export function verifySignature(key: KeyObject, bytes: Buffer, sig: string): boolean {
  if (!BASE64URL.test(sig)) return false;
  const raw = Buffer.from(sig, 'base64url');
  // Re-encoding rejects non-canonical spellings, so one signature has exactly one textual form.
  if (raw.length !== 64 || raw.toString('base64url') !== sig) return false;
  return verify(null, bytes, key, raw);
}
