// The ledger's files on disk: segment names, a byte-exact bounded line reader, and small fd helpers.
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { open, readdir, type FileHandle } from 'node:fs/promises';

/** A line, its `\n` included, is at most this long; a longer event is stored redacted or refused. */
export const MAX_LINE_BYTES = 256 * 1024;

const DIGITS = 20;
const pad = (n: number): string => String(n).padStart(DIGITS, '0');

/** Rotated segment name: `<base>.segment-<first seq>-<last seq>`, zero-padded so names sort like sequences. */
export function segmentName(base: string, first: number, last: number): string {
  return `${base}.segment-${pad(first)}-${pad(last)}`;
}

/** A rotated segment found in the ledger directory. */
export interface SegmentFile {
  name: string;
  first: number;
  last: number;
}

/** Lists `<base>.segment-*` files sorted by first sequence; names with the prefix that do not parse are returned apart. */
export async function listSegments(dir: string, base: string): Promise<{ segments: SegmentFile[]; odd: string[] }> {
  const prefix = `${base}.segment-`;
  const pattern = new RegExp(`^(\\d{${DIGITS}})-(\\d{${DIGITS}})$`);
  const segments: SegmentFile[] = [];
  const odd: string[] = [];
  for (const name of await readdir(dir)) {
    if (!name.startsWith(prefix)) continue;
    const m = pattern.exec(name.slice(prefix.length));
    const first = m ? Number(m[1]) : NaN;
    const last = m ? Number(m[2]) : NaN;
    if (!Number.isSafeInteger(first) || !Number.isSafeInteger(last) || first < 1 || last < first) odd.push(name);
    else segments.push({ name, first, last });
  }
  segments.sort((a, b) => a.first - b.first);
  return { segments, odd };
}

/** What the line reader reports, in file order; `end` comes last unless a `too_long` stopped the read. */
export type LineEvent =
  | { kind: 'line'; no: number; text: string }
  | { kind: 'too_long'; no: number }
  | { kind: 'bad_utf8'; no: number }
  | { kind: 'torn'; no: number; text: string }
  | { kind: 'end'; digest: string; bytes: number; lines: number };

/**
 * Streams a file as `\n`-terminated lines with memory bounded by maxLine, hashing the exact bytes on the way
 * (readline would hide a missing final newline and `\r`). A last line without `\n` comes out as `torn`.
 */
export async function* readLines(path: string, maxLine = MAX_LINE_BYTES): AsyncGenerator<LineEvent> {
  const digest = createHash('sha256');
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let pending: Buffer[] = [];
  let pendingLen = 0;
  let no = 0;
  let bytes = 0;
  const decode = (buf: Buffer): string | undefined => {
    try {
      return decoder.decode(buf);
    } catch {
      return undefined;
    }
  };
  for await (const chunk of createReadStream(path, { highWaterMark: 64 * 1024 }) as AsyncIterable<Buffer>) {
    digest.update(chunk);
    bytes += chunk.length;
    let start = 0;
    for (let nl = chunk.indexOf(10, start); nl !== -1; nl = chunk.indexOf(10, start)) {
      const piece = chunk.subarray(start, nl);
      const full = pendingLen === 0 ? piece : Buffer.concat([...pending, piece]);
      pending = [];
      pendingLen = 0;
      start = nl + 1;
      no += 1;
      if (full.length + 1 > maxLine) {
        yield { kind: 'too_long', no };
        return;
      }
      const text = decode(full);
      yield text === undefined ? { kind: 'bad_utf8', no } : { kind: 'line', no, text };
    }
    if (start < chunk.length) {
      pending.push(chunk.subarray(start));
      pendingLen += chunk.length - start;
      if (pendingLen + 1 > maxLine) {
        yield { kind: 'too_long', no: no + 1 };
        return;
      }
    }
  }
  if (pendingLen > 0) {
    no += 1;
    const text = decode(Buffer.concat(pending));
    yield text === undefined ? { kind: 'bad_utf8', no } : { kind: 'torn', no, text };
  }
  yield { kind: 'end', digest: `sha256:${digest.digest('hex')}`, bytes, lines: no };
}

/** SHA-256 of a whole file, streamed. */
export async function fileDigest(path: string): Promise<string> {
  const h = createHash('sha256');
  for await (const chunk of createReadStream(path) as AsyncIterable<Buffer>) h.update(chunk);
  return `sha256:${h.digest('hex')}`;
}

/** What the end of the active file looks like. */
export type Tail =
  | { kind: 'empty' }
  | { kind: 'lines'; last: string; completeEnd: number; torn: string | undefined }
  | { kind: 'torn_only'; torn: string }
  | { kind: 'unreadable' };

/**
 * Reads at most 2 x maxLine bytes from the end: the last complete line (without `\n`), the offset where complete lines
 * end, and any torn bytes after it (a write cut short by a crash).
 */
export async function readTail(fh: FileHandle, size: number, maxLine = MAX_LINE_BYTES): Promise<Tail> {
  if (size === 0) return { kind: 'empty' };
  const len = Math.min(size, maxLine * 2);
  const buf = Buffer.alloc(len);
  await fh.read(buf, 0, len, size - len);
  const whole = len === size;
  const lastNl = buf.lastIndexOf(10);
  if (lastNl === -1) return whole ? { kind: 'torn_only', torn: buf.toString('utf8') } : { kind: 'unreadable' };
  const torn = lastNl === len - 1 ? undefined : buf.subarray(lastNl + 1).toString('utf8');
  const prevNl = lastNl === 0 ? -1 : buf.lastIndexOf(10, lastNl - 1);
  if (prevNl === -1 && !whole) return { kind: 'unreadable' };
  return {
    kind: 'lines',
    last: buf.subarray(prevNl + 1, lastNl).toString('utf8'),
    completeEnd: size - len + lastNl + 1,
    torn,
  };
}

/** The first line of a file (without `\n`), or undefined when it has none within maxLine bytes. */
export async function readFirstLine(path: string, maxLine = MAX_LINE_BYTES): Promise<string | undefined> {
  const fh = await open(path, 'r');
  try {
    const buf = Buffer.alloc(maxLine);
    const { bytesRead } = await fh.read(buf, 0, maxLine, 0);
    const nl = buf.subarray(0, bytesRead).indexOf(10);
    return nl === -1 ? undefined : buf.subarray(0, nl).toString('utf8');
  } finally {
    await fh.close();
  }
}

/** Makes a rename or unlink durable; some platforms cannot fsync a directory, which is then accepted. */
export async function fsyncDir(dir: string): Promise<void> {
  let fh: FileHandle | undefined;
  try {
    fh = await open(dir, 'r');
    await fh.sync();
  } catch {
    // Best effort: Windows refuses to open a directory for sync.
  } finally {
    await fh?.close();
  }
}
