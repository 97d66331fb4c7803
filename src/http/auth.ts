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
