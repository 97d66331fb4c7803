// Shared helpers for the audit tests: temp dirs and a plausible event.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AuditEvent } from '../../src/audit/index.js';

export const SALT = Buffer.from('0123456789abcdef0123456789abcdef', 'hex');

/** A private temp dir (mkdtemp creates it 0700) and its cleanup. */
export async function tempDir(): Promise<{ dir: string; file: string; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'gb-audit-'));
  return { dir, file: join(dir, 'audit.jsonl'), cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/** The i-th event of a scripted agent session. */
export function event(i: number, over: Partial<AuditEvent> = {}): AuditEvent {
  return {
    perimeter: i % 2 === 0 ? 'docs' : 'api',
    branch: 'main',
    surface: 'agent',
    tool: i % 3 === 0 ? 'write_file' : 'read_file',
    client: 'claude-code',
    verdict: i % 5 === 0 ? 'deny' : 'allow',
    result: i % 5 === 0 ? 'not_found' : 'ok',
    bytes: 100 + i,
    durationMs: 3.7,
    paths: [`src/file-${i % 4}.ts`],
    args: { path: `src/file-${i % 4}.ts`, n: i },
    ...(i % 3 === 0 ? { commit: 'a'.repeat(40) } : {}),
    ...over,
  };
}
