/**
 * Deciding whether file bytes are text.
 *
 * Pure: no `Buffer` (a Node global, kept out of the core like `node:*`). Text is decoded with the standard
 * `TextDecoder` in fatal mode, so adapters pass plain `Uint8Array`s and `serve.ts` decides what a surface is served.
 * Base64 is left to the caller's native encoder (a pure-JS one cost ~0.3–0.7 s of event loop per 5 MB).
 */

/** Bytes examined for a NUL, as git does (`buffer_is_binary` looks at the first 8000). */
export const SNIFF_BYTES = 8000;

/**
 * True when the bytes are not UTF-8 text: a NUL in the first 8000 bytes (git's own test), or anywhere an invalid
 * UTF-8 sequence (a Latin-1 or UTF-16 file, an image, a truncated multi-byte character at the end).
 */
export function sniffBinary(bytes: Uint8Array): boolean {
  return decodeUtf8(bytes) === undefined;
}

/** Decodes strict UTF-8, or returns undefined when the bytes are binary (see `sniffBinary`). */
export function decodeUtf8(bytes: Uint8Array): string | undefined {
  const head = bytes.length > SNIFF_BYTES ? bytes.subarray(0, SNIFF_BYTES) : bytes;
  if (head.includes(0)) return undefined;
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return undefined;
  }
}
