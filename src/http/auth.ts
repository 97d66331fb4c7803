import { createHash, timingSafeEqual } from 'node:crypto';

/** The token of an `Authorization: Bearer <token>` header, if that is what the header holds. */
export function bearerOf(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return m?.[1];
}

/** Compares secrets in constant time; hashing first makes the comparison independent of the lengths too. */
export function sameSecret(given: string | undefined, expected: string): boolean {
  if (given === undefined) return false;
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

/** The shortest ops token accepted: 32 characters carry 128 bits even when written in hex. */
export const MIN_OPS_TOKEN_CHARS = 32;

/**
 * Why an ops token is too short to guard the operator surfaces (undefined when it is long enough). Length is the rule
 * a person can check; what makes guessing hopeless is that length plus the per-source back-off of `OpsGate`.
 */
export function opsTokenTooShort(token: string): string | undefined {
  if (token.length >= MIN_OPS_TOKEN_CHARS) return undefined;
  return `is ${token.length} characters; an ops token needs at least ${MIN_OPS_TOKEN_CHARS} (128 bits in hex). Make one with: openssl rand -hex 32`;
}
