import { appendFile, mkdir, readFile, rename, rmdir, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { hostname } from 'node:os';
import { generateKeyPairSync } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { generateSigningKey } from '../support/signing-key.js';
import {
  loadOrCreateSalt,
  openLedger,
  pathDigest,
  queryLedger,
  verifyLedger,
  type LedgerEntry,
} from '../../src/audit/index.js';
import { event, SALT, tempDir } from './helpers.js';

let t: Awaited<ReturnType<typeof tempDir>>;
beforeEach(async () => {
  t = await tempDir();
});
afterEach(async () => {
  await t.cleanup();
});

const lines = async (file: string): Promise<Record<string, unknown>[]> =>
  (await readFile(file, 'utf8'))
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);

describe('openLedger / append', () => {
  it('writes one chained line per event with the documented fields', async () => {
    const now = new Date('2025-01-02T03:04:05.678Z');
    const ledger = await openLedger({ dir: t.dir, salt: SALT, now: () => now });
    await ledger.append(event(0));
    await ledger.append(event(1));
    await ledger.close();
    const [a, b] = await lines(t.file);
    expect(a).toMatchObject({
      v: 1,
      kind: 'event',
      seq: 1,
      ts: '2025-01-02T03:04:05.678Z',
      perimeter: 'docs',
      branch: 'main',
      surface: 'agent',
      tool: 'write_file',
      client: 'claude-code',
      verdict: 'deny',
      result: 'not_found',
      bytes: 100,
      duration_ms: 4,
      commit: 'a'.repeat(40),
      redaction: 'hmac-sha256',
      prev_hash: 'genesis',
    });
    expect(b?.['seq']).toBe(2);
    expect(b?.['prev_hash']).toBe(a?.['hash']);
    expect(ledger.state()).toMatchObject({ ok: true, entries: 2, failures: 0, lastSeq: 2, file: t.file });
    expect((await verifyLedger(t.file)).ok).toBe(true);
  });

  it('stores paths and args as salted HMACs by default: correlatable, not readable', async () => {
    const ledger = await openLedger({ dir: t.dir, salt: SALT });
    await ledger.append(event(0, { paths: ['secret/plan.md'], args: { path: 'secret/plan.md' } }));
    await ledger.append(event(1, { paths: ['secret/plan.md'], args: { path: 'secret/plan.md' } }));
    await ledger.close();
    const text = await readFile(t.file, 'utf8');
    expect(text).not.toContain('secret');
    expect(text).not.toContain('plan.md');
    const [a, b] = await lines(t.file);
    expect(a?.['paths']).toEqual([pathDigest(SALT, 'secret/plan.md')]);
    expect(a?.['paths']).toEqual(b?.['paths']);
    expect(a?.['args']).toEqual(b?.['args']);
    expect(typeof a?.['salt_id']).toBe('string');
  });

  it('a different salt gives different digests for the same path', () => {
    expect(pathDigest(SALT, 'a.ts')).not.toBe(pathDigest(Buffer.alloc(32, 7), 'a.ts'));
  });

  it('stores paths and args in clear with clearPaths: true', async () => {
    const ledger = await openLedger({ dir: t.dir, salt: SALT, clearPaths: true });
    await ledger.append(event(0, { paths: ['secret/plan.md'], args: { path: 'secret/plan.md', depth: 2 } }));
    await ledger.close();
    const [a] = await lines(t.file);
    expect(a).toMatchObject({
      redaction: 'clear',
      paths: ['secret/plan.md'],
      args: { path: 'secret/plan.md', depth: 2 },
    });
    expect(a?.['salt_id']).toBeUndefined();
    expect((await verifyLedger(t.file)).ok).toBe(true);
  });

  it('an oversized clear event is stored hashed, with a warning, rather than lost', async () => {
    const warnings: string[] = [];
    const ledger = await openLedger({ dir: t.dir, salt: SALT, clearPaths: true, log: (_l, m) => warnings.push(m) });
    await ledger.append(event(0, { args: { blob: 'x'.repeat(300 * 1024) } }));
    await ledger.close();
    const [a] = await lines(t.file);
    expect(a?.['redaction']).toBe('hmac-sha256');
    expect(warnings.join()).toMatch(/too large/);
    expect(ledger.state().ok).toBe(true);
  });

  it('neutralises control characters in the self-reported client name', async () => {
    const ledger = await openLedger({ dir: t.dir, salt: SALT });
    await ledger.append(event(0, { client: 'evil\u001b[2Jname\n' }));
    await ledger.close();
    const [a] = await lines(t.file);
    expect(a?.['client']).toBe('evil [2Jname ');
  });

  it('signs every entry when a key is configured', async () => {
    const key = generateSigningKey();
    const ledger = await openLedger({ dir: t.dir, salt: SALT, signingKey: key });
    await ledger.append(event(0));
    await ledger.close();
    const [a] = await lines(t.file);
    expect(a?.['key_id']).toBe(key.keyId);
    expect(a?.['sig']).toMatch(/^[A-Za-z0-9_-]{86}$/);
    const report = await verifyLedger(t.file, { publicKeys: { [key.keyId]: key.publicKeyPem }, requireSigned: true });
    expect(report).toMatchObject({ ok: true, counters: { signed: 1, unsigned: 0 } });
  });
});

describe('fail closed at open', () => {
  const base = () => ({ dir: t.dir, salt: SALT });
  it('rejects an empty, unreadable or non-Ed25519 signing key', async () => {
    await expect(openLedger({ ...base(), signingKey: { keyId: 'k1', privateKeyPem: '' } })).rejects.toThrow(/empty/);
    await expect(openLedger({ ...base(), signingKey: { keyId: 'k1', privateKeyPem: 'nope' } })).rejects.toThrow(
      /not a readable/,
    );
    const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({ type: 'pkcs8', format: 'pem' });
    await expect(openLedger({ ...base(), signingKey: { keyId: 'k1', privateKeyPem: rsa.toString() } })).rejects.toThrow(
      /Ed25519/,
    );
    await expect(
      openLedger({ ...base(), signingKey: { keyId: 'bad id!', privateKeyPem: generateSigningKey().privateKeyPem } }),
    ).rejects.toThrow(/key id/);
  });

  it('rejects a short salt and silly sizes', async () => {
    await expect(openLedger({ dir: t.dir, salt: 'short' })).rejects.toThrow(/salt/);
    await expect(openLedger({ ...base(), maxBytes: 10 })).rejects.toThrow(/maxBytes/);
    await expect(openLedger({ ...base(), keep: -1 })).rejects.toThrow(/keep/);
    await expect(openLedger({ ...base(), fileName: '../x' })).rejects.toThrow(/fileName/);
  });
});

describe('degraded, never throwing', () => {
  it('an append failure resolves, marks the state and logs; the next success clears ok', async () => {
    const logged: string[] = [];
    const ledger = await openLedger({ dir: t.dir, salt: SALT, log: (level, m) => logged.push(`${level}:${m}`) });
    await mkdir(t.file); // the active file is now a directory: open fails
    await expect(ledger.append(event(0))).resolves.toBeUndefined();
    expect(ledger.state()).toMatchObject({ ok: false, failures: 1, entries: 0 });
    expect(ledger.state().lastError).toBeTruthy();
    expect(logged[0]).toMatch(/^error:audit append failed/);
    await rmdir(t.file);
    await ledger.append(event(1));
    expect(ledger.state()).toMatchObject({ ok: true, failures: 1, entries: 1 });
    await ledger.close();
  });

  it('an invalid event and an append after close degrade instead of throwing', async () => {
    const ledger = await openLedger({
      dir: t.dir,
      salt: SALT,
      log: () => {
        throw new Error('broken logger');
      },
    });
    await ledger.append({ ...event(0), surface: 'nope' as 'agent' });
    expect(ledger.state().lastError).toMatch(/invalid audit event/);
    await ledger.close();
    await ledger.append(event(1));
    expect(ledger.state()).toMatchObject({ ok: false, failures: 2, lastError: 'ledger is closed' });
  });
});

describe('torn tails and locks', () => {
  it('cuts a partially written last line, then continues the chain', async () => {
    const warnings: string[] = [];
    const ledger = await openLedger({ dir: t.dir, salt: SALT, log: (_l, m) => warnings.push(m) });
    await ledger.append(event(0));
    await ledger.append(event(1));
    await appendFile(t.file, '{"v":1,"kind":"ev');
    await ledger.append(event(2));
    await ledger.close();
    expect(warnings.join()).toMatch(/torn/);
    expect(await verifyLedger(t.file)).toMatchObject({ ok: true, counters: { events: 3, lastSeq: 3 } });
  });

  it('gives a complete last record its missing newline', async () => {
    const ledger = await openLedger({ dir: t.dir, salt: SALT });
    await ledger.append(event(0));
    await writeFile(t.file, (await readFile(t.file, 'utf8')).trimEnd());
    await ledger.append(event(1));
    await ledger.close();
    expect(await verifyLedger(t.file)).toMatchObject({ ok: true, counters: { events: 2 } });
  });

  it('breaks a lock left by a dead process, and a lock older than staleLockMs', async () => {
    const ledger = await openLedger({ dir: t.dir, salt: SALT, lockTimeoutMs: 2000 });
    const dead = { pid: 2 ** 22 + 12345, host: hostname(), token: 'x', at: 0 };
    await writeFile(`${t.file}.lock`, JSON.stringify(dead));
    await ledger.append(event(0));
    expect(ledger.state()).toMatchObject({ ok: true, entries: 1 });
    await writeFile(`${t.file}.lock`, JSON.stringify({ ...dead, pid: process.ppid, host: 'elsewhere' }));
    const old = new Date(Date.now() - 120_000);
    await utimes(`${t.file}.lock`, old, old);
    await ledger.append(event(1));
    expect(ledger.state()).toMatchObject({ ok: true, entries: 2 });
    await ledger.close();
  });

  it('waits for a live lock and degrades when it is not released in time', async () => {
    const ledger = await openLedger({ dir: t.dir, salt: SALT, lockTimeoutMs: 150 });
    await writeFile(
      `${t.file}.lock`,
      JSON.stringify({ pid: process.ppid, host: hostname(), token: 'y', at: Date.now() }),
    );
    await ledger.append(event(0));
    expect(ledger.state()).toMatchObject({ ok: false, failures: 1 });
    expect(ledger.state().lastError).toMatch(/lock/);
    await ledger.close();
  });
});

describe('crash windows', () => {
  it('recovers from a crash between renaming the active file and writing the new checkpoint', async () => {
    const ledger = await openLedger({ dir: t.dir, salt: SALT, keep: 10 });
    for (let i = 0; i < 3; i++) await ledger.append(event(i));
    // What the rotation's rename leaves behind if the process dies before the new active file exists.
    await rename(t.file, join(t.dir, 'audit.jsonl.segment-00000000000000000001-00000000000000000003'));
    expect(await verifyLedger(t.file)).toMatchObject({ ok: true, counters: { events: 3, files: 1 } });
    await ledger.append(event(3));
    await ledger.close();
    const report = await verifyLedger(t.file);
    expect(report).toMatchObject({ ok: true, counters: { events: 4, checkpoints: 1, segments: 1, lastSeq: 5 } });
  });
});

describe('salt and query', () => {
  it('creates the salt once and reads it back', async () => {
    const a = await loadOrCreateSalt(t.dir);
    const b = await loadOrCreateSalt(t.dir);
    expect(a.length).toBe(32);
    expect(b.equals(a)).toBe(true);
  });

  it('queries events by perimeter, verdict, time and limit, across segments', async () => {
    let clock = Date.parse('2025-01-01T00:00:00.000Z');
    const ledger = await openLedger({
      dir: t.dir,
      salt: SALT,
      maxBytes: 4096,
      keep: 100,
      now: () => new Date((clock += 1000)),
    });
    for (let i = 0; i < 40; i++) await ledger.append(event(i));
    await ledger.close();
    const all = async (f: Parameters<typeof queryLedger>[1]): Promise<LedgerEntry[]> => {
      const out: LedgerEntry[] = [];
      for await (const e of queryLedger(t.file, f)) out.push(e);
      return out;
    };
    expect((await verifyLedger(t.file)).counters.segments).toBeGreaterThan(1);
    expect(await all({})).toHaveLength(40);
    const denied = await all({ perimeter: 'docs', verdict: 'deny' });
    expect(denied.map((e) => e.seq).length).toBe(4); // i = 0, 10, 20, 30
    expect(denied.every((e) => e.perimeter === 'docs' && e.verdict === 'deny')).toBe(true);
    expect(await all({ since: new Date('2025-01-01T00:00:35.000Z') })).toHaveLength(6);
    expect(await all({ limit: 3 })).toHaveLength(3);
  });
});
