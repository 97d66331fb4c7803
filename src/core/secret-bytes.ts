// What the secret scanner reads when content is not plain UTF-8 text. A token hidden by a text encoding is still a
// token to whatever reads the file back (a UTF-16 .reg or .ps1 file, a NUL-padded config), so the scanner reads
// the decodings too. Compressed content cannot be read here without inflating it (core is pure, and a zip bomb
// is cheap), so it is recognised by its header and refused unless the perimeter accepts binary writes.
import { scanForSecrets, type Finding } from './secrets.js';

/** A file as the bytes that would be written. */
export interface ScannedBytes {
  readonly path: string;
  readonly bytes: Uint8Array;
}

/** Compression formats recognised by their header (or, for zip, its end record). */
export type CompressedFormat = 'gzip' | 'zlib' | 'zip' | 'bzip2' | 'xz' | 'zstd' | '7z' | 'lz4' | 'rar';

/** The outcome of scanning byte contents: findings, and the files that cannot be scanned because they are compressed. */
export interface BytesScan {
  readonly findings: Finding[];
  readonly compressed: { path: string; format: CompressedFormat }[];
}

const starts = (b: Uint8Array, sig: readonly number[], at = 0): boolean => sig.every((x, i) => b[at + i] === x);

/** The compression format of `bytes` when it starts like one (or ends like a zip archive), else undefined. */
export function compressedFormat(bytes: Uint8Array, isText: boolean): CompressedFormat | undefined {
  if (starts(bytes, [0x1f, 0x8b])) return 'gzip';
  if (
    starts(bytes, [0x50, 0x4b, 0x03, 0x04]) ||
    starts(bytes, [0x50, 0x4b, 0x05, 0x06]) ||
    starts(bytes, [0x50, 0x4b, 0x07, 0x08])
  )
    return 'zip';
  // Zip readers find an archive by its end record, so one appended to any file (a "polyglot") is still a zip.
  if (!isText && bytes.length >= 22) {
    for (let i = bytes.length - 22; i >= Math.max(0, bytes.length - 22 - 0xffff); i--)
      if (starts(bytes, [0x50, 0x4b, 0x05, 0x06], i)) return 'zip';
  }
  if (
    starts(bytes, [0x42, 0x5a, 0x68]) &&
    (bytes[3] ?? 0) >= 0x31 &&
    (bytes[3] ?? 0) <= 0x39 &&
    starts(bytes, [0x31, 0x41, 0x59, 0x26, 0x53, 0x59], 4)
  )
    return 'bzip2';
  if (starts(bytes, [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00])) return 'xz';
  if (starts(bytes, [0x28, 0xb5, 0x2f, 0xfd])) return 'zstd';
  if (starts(bytes, [0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c])) return '7z';
  if (starts(bytes, [0x04, 0x22, 0x4d, 0x18])) return 'lz4';
  if (starts(bytes, [0x52, 0x61, 0x72, 0x21, 0x1a, 0x07])) return 'rar';
  // A zlib header is two bytes that plain text can start with ("x^", "hZ"): judged only on content that is not text.
  const cmf = bytes[0] ?? 0;
  const flg = bytes[1] ?? 0;
  if (!isText && bytes.length >= 2 && (cmf & 0x0f) === 8 && cmf >> 4 <= 7 && ((cmf << 8) | flg) % 31 === 0)
    return 'zlib';
  return undefined;
}

function strictUtf8(bytes: Uint8Array): string | undefined {
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

// NULs dropped, then every byte outside printable ASCII (tab, newline and CR kept) as a space: UTF-16 and UTF-32
// text of any byte order and alignment, and NUL-padded text, read as their ASCII letters with lines intact.
function asciiProjection(bytes: Uint8Array): string {
  const out = new Uint8Array(bytes.length);
  let n = 0;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i] ?? 0;
    if (b === 0) continue;
    out[n++] = b === 0x09 || b === 0x0a || b === 0x0d || (b >= 0x20 && b < 0x7f) ? b : 0x20;
  }
  // Every byte is ASCII now, so any single-byte decoding gives the same string.
  return new TextDecoder('latin1').decode(out.subarray(0, n));
}

// UTF-16 by its BOM, or by NULs that fall mostly on one byte of each pair (ASCII-range text).
function utf16Order(bytes: Uint8Array): 'utf-16le' | 'utf-16be' | undefined {
  if (starts(bytes, [0xff, 0xfe])) return 'utf-16le';
  if (starts(bytes, [0xfe, 0xff])) return 'utf-16be';
  const n = Math.min(bytes.length, 8000) & ~1;
  let even = 0;
  let odd = 0;
  for (let i = 0; i < n; i += 2) {
    if (bytes[i] === 0) even++;
    if (bytes[i + 1] === 0) odd++;
  }
  const pairs = n / 2;
  if (pairs === 0) return undefined;
  if (odd > pairs * 0.3 && even < pairs * 0.05) return 'utf-16le';
  if (even > pairs * 0.3 && odd < pairs * 0.05) return 'utf-16be';
  return undefined;
}

/** The content as text when it is UTF-8 without a NUL, else undefined. */
function plainText(bytes: Uint8Array): string | undefined {
  const text = strictUtf8(bytes);
  return text !== undefined && !text.includes('\u0000') ? text : undefined;
}

/** The texts the scanner reads for one content: itself when it is UTF-8 without NUL, else its decodings. */
export function secretViews(bytes: Uint8Array): string[] {
  const text = plainText(bytes);
  if (text !== undefined) return [text];
  const views = [asciiProjection(bytes)];
  const order = utf16Order(bytes);
  if (order) views.push(new TextDecoder(order, { fatal: false }).decode(bytes));
  return views;
}

/**
 * Scans contents given as bytes. Text is scanned as text; other content through its decodings (`secretViews`),
 * findings merged per (path, line, kind). Compressed content is listed in `compressed` (and not scanned) unless
 * `allowCompressed`, in which case it is scanned as bytes like any other binary content.
 */
export function scanBytesForSecrets(files: readonly ScannedBytes[], opts: { allowCompressed: boolean }): BytesScan {
  const compressed: BytesScan['compressed'] = [];
  const findings: Finding[] = [];
  for (const f of files) {
    const format = compressedFormat(f.bytes, plainText(f.bytes) !== undefined);
    if (format && !opts.allowCompressed) {
      compressed.push({ path: f.path, format });
      continue;
    }
    const seen = new Set<string>();
    for (const found of scanForSecrets(secretViews(f.bytes).map((content) => ({ path: f.path, content })))) {
      const key = `${found.line}:${found.kind}`;
      if (seen.has(key)) continue;
      seen.add(key);
      findings.push(found);
    }
  }
  return {
    findings: findings.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : a.line - b.line)),
    compressed,
  };
}

/** The refusal for a write that carries compressed content the scanner cannot look into. */
export function compressedRefusal(files: BytesScan['compressed']): string {
  const shown = files.slice(0, 20).map((f) => `"${f.path}" (${f.format})`);
  const more = files.length > 20 ? ` and ${files.length - 20} more` : '';
  return (
    `Compressed content cannot be checked for secrets: ${shown.join(', ')}${more}. Nothing was written: the whole ` +
    'change was refused. Write the files uncompressed instead.'
  );
}
