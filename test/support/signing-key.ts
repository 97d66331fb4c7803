// A fresh Ed25519 audit signing key for tests (the server only ever loads an operator's key; it never makes one).
import { generateKeyPairSync } from 'node:crypto';
import { keyIdOf } from '../../src/audit/index.js';

/** Creates a fresh Ed25519 key pair with its derived key id (PKCS#8 private PEM, SPKI public PEM). */
export function generateSigningKey(): { keyId: string; privateKeyPem: string; publicKeyPem: string } {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  return {
    keyId: keyIdOf(publicKey),
    privateKeyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
  };
}
