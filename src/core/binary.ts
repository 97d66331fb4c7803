/**
 * Deciding whether file bytes are text, and how to serve them.
 *
 * Pure: no `Buffer` (a Node global, kept out of the core like `node:*`), no `btoa` (it takes a "binary string" and
 * throws above U+00FF). Text is decoded with the standard `TextDecoder` in fatal mode; base64 is a small encoder
 * below, so the core owns the exact bytes it hands out and adapters pass plain `Uint8Array`s.
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

/** How one file's content is handed to an agent. */
export type ServedContent =
  | { kind: 'text'; text: string }
  | { kind: 'base64'; data: string }
  | { kind: 'refused'; message: string };

/** Options for `serveContent`. */
export interface ServeOptions {
  /** The tool (or perimeter) accepts binary content, returned as base64. */
  readonly allowBinary: boolean;
}

/**
 * Serves UTF-8 text as text (byte-exact: a leading BOM is kept, so a read-then-write round trip changes nothing),
 * anything else as base64 when binary is allowed, and otherwise a refusal that says what to do.
 */
export function serveContent(bytes: Uint8Array, options: ServeOptions): ServedContent {
  const text = decodeUtf8(bytes);
  if (text !== undefined) return { kind: 'text', text };
  if (options.allowBinary) return { kind: 'base64', data: encodeBase64(bytes) };
  return {
    kind: 'refused',
    message:
      'This file is binary (not UTF-8 text), so its content is not returned as text. ' +
      'Use its listing entry or history instead, or read a text file.',
  };
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

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** Standard base64 (RFC 4648 §4, with `=` padding) of the bytes. */
export function encodeBase64(bytes: Uint8Array): string {
  const chunks: string[] = [];
  // Build in slices so a large file never grows one string character by character.
  const SLICE = 3 * 4096;
  for (let at = 0; at < bytes.length; at += SLICE) {
    const end = Math.min(at + SLICE, bytes.length);
    let out = '';
    let i = at;
    for (; i + 2 < end; i += 3) {
      const n = ((bytes[i] ?? 0) << 16) | ((bytes[i + 1] ?? 0) << 8) | (bytes[i + 2] ?? 0);
      out += ALPHABET.charAt(n >>> 18) + ALPHABET.charAt((n >>> 12) & 63) + ALPHABET.charAt((n >>> 6) & 63) + ALPHABET.charAt(n & 63);
    }
    const rest = end - i;
    if (rest === 1) {
      const n = (bytes[i] ?? 0) << 16;
      out += `${ALPHABET.charAt(n >>> 18)}${ALPHABET.charAt((n >>> 12) & 63)}==`;
    } else if (rest === 2) {
      const n = ((bytes[i] ?? 0) << 16) | ((bytes[i + 1] ?? 0) << 8);
      out += `${ALPHABET.charAt(n >>> 18)}${ALPHABET.charAt((n >>> 12) & 63)}${ALPHABET.charAt((n >>> 6) & 63)}=`;
    }
    chunks.push(out);
  }
  return chunks.join('');
}
