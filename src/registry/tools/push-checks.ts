import { compressedRefusal, scanBytesForSecrets, secretsRefusal, type AgentBinding } from '../../core/index.js';

/** Server defaults for a write when the perimeter sets none. */
export const DEFAULT_MAX_FILE_BYTES = 5 * 1024 * 1024;

export interface PushArgs {
  readonly message: string;
  readonly files: readonly { path: string; content: string; encoding?: 'utf-8' | 'base64' | undefined }[];
  readonly delete?: readonly string[] | undefined;
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

const bytesOf = (f: PushArgs['files'][number]) =>
  f.encoding === 'base64' ? Buffer.from(f.content, 'base64').byteLength : Buffer.byteLength(f.content, 'utf8');

/** Argument checks that need no upstream: duplicates, a path both written and deleted, malformed base64. */
export function checkShape(a: PushArgs): string | undefined {
  const deletes = a.delete ?? [];
  if (a.files.length + deletes.length === 0) return 'Nothing to commit: give at least one file or one path to delete.';
  const seen = new Set<string>();
  for (const p of [...a.files.map((f) => f.path), ...deletes]) {
    if (seen.has(p)) return `Path "${p}" appears twice; write or delete each path once per commit.`;
    seen.add(p);
  }
  const written = new Set(a.files.map((f) => f.path));
  for (const f of a.files) {
    const above = f.path
      .split('/')
      .slice(0, -1)
      .map((_, i, parts) => parts.slice(0, i + 1).join('/'))
      .find((d) => written.has(d));
    if (above !== undefined)
      return `"${above}" and "${f.path}" cannot both be written: a file and a directory cannot share a path.`;
  }
  for (const f of a.files) {
    if (f.encoding === 'base64' && (f.content.length % 4 !== 0 || !BASE64.test(f.content))) {
      return `Content of "${f.path}" is not valid base64.`;
    }
  }
  return undefined;
}

/** The perimeter's write budget per commit: number of files and size of each. */
export function checkLimits(a: PushArgs, b: AgentBinding): string | undefined {
  const maxFiles = b.limits.files_per_commit;
  const count = a.files.length + (a.delete ?? []).length;
  if (maxFiles !== undefined && count > maxFiles) {
    return `This perimeter allows at most ${maxFiles} files per commit (this call has ${count}); split the change into several commits.`;
  }
  const maxBytes = b.limits.max_file_bytes ?? DEFAULT_MAX_FILE_BYTES;
  const big = a.files.filter((f) => bytesOf(f) > maxBytes).map((f) => `"${f.path}"`);
  if (big.length > 0)
    return `Too large: ${big.join(', ')} exceed${big.length === 1 ? 's' : ''} ${maxBytes} bytes, the per-file limit of this perimeter. Nothing was written.`;
  return undefined;
}

/**
 * Refuses content that looks like a credential, naming file and line, unless the perimeter allows it. Every file is
 * judged as the bytes git will store (a UTF-16 or NUL-padded token is still a token); compressed content, which the
 * scanner cannot read, is refused unless the perimeter accepts binary content.
 */
export function checkSecrets(a: PushArgs, b: AgentBinding): string | undefined {
  if (b.allowSecrets) return undefined;
  const files = a.files.map((f) => ({
    path: f.path,
    bytes: f.encoding === 'base64' ? Buffer.from(f.content, 'base64') : Buffer.from(f.content, 'utf8'),
  }));
  const scan = scanBytesForSecrets(files, { allowCompressed: b.allowBinary });
  if (scan.compressed.length > 0) return compressedRefusal(scan.compressed);
  return scan.findings.length > 0 ? secretsRefusal(scan.findings) : undefined;
}
