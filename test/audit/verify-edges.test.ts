// Malformed shapes the verifier must refuse with a precise problem, and the ones it must accept.
import { appendFile, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openLedger, verifyLedger, type VerifyReport } from '../../src/audit/index.js';
import { canonicalJson } from '../../src/audit/canonical.js';
import { hashedBytes, sha256Label } from '../../src/audit/record.js';
import { event, SALT, tempDir } from './helpers.js';

let t: Awaited<ReturnType<typeof tempDir>>;
let lines: string[];
beforeEach(async () => {
  t = await tempDir();
  const l = await openLedger({ dir: t.dir, salt: SALT });
  for (let i = 0; i < 3; i++) await l.append(event(i));
  await l.close();
  lines = (await readFile(t.file, 'utf8')).split('\n').slice(0, -1);
});
afterEach(async () => {
  await t.cleanup();
});

const problem = (r: VerifyReport) => (r.ok ? undefined : r.problem);
const write = (ls: string[], end = '\n') => writeFile(t.file, ls.join('\n') + end);

describe('verifyLedger edge cases', () => {
  it('refuses a same-value line whose keys were reordered (not canonical)', async () => {
    const obj = JSON.parse(lines[1] as string) as Record<string, unknown>;
    const reordered = Object.fromEntries(Object.entries(obj).reverse());
    await write([lines[0] as string, JSON.stringify(reordered), lines[2] as string]);
    expect(problem(await verifyLedger(t.file))).toMatchObject({ code: 'malformed', line: 2 });
  });

  it('refuses CRLF, blank lines, a missing final newline and an overlong line', async () => {
    await write(lines, '\r\n');
    expect(problem(await verifyLedger(t.file))).toMatchObject({ code: 'malformed', line: 3 });
    await write([lines[0] as string, '', ...lines.slice(1)]);
    expect(problem(await verifyLedger(t.file))).toMatchObject({ code: 'malformed', line: 2 });
    await write(lines, '');
    expect(problem(await verifyLedger(t.file))).toMatchObject({ code: 'malformed', line: 3 });
    await write(lines);
    await appendFile(t.file, `${'x'.repeat(300 * 1024)}\n`);
    expect(problem(await verifyLedger(t.file))).toMatchObject({ code: 'malformed', line: 4 });
  });

  it('refuses an unknown field even with a correct hash and chain, and a checkpoint inside a file', async () => {
    const last = JSON.parse(lines[2] as string) as Record<string, unknown>;
    const next = (extra: Record<string, unknown>): string => {
      const rest: Record<string, unknown> = { ...last, seq: 4, prev_hash: last['hash'], ...extra };
      delete rest['hash'];
      return canonicalJson({ ...rest, hash: sha256Label(hashedBytes(rest)) });
    };
    await write([...lines, next({ extra: 1 })]);
    expect(problem(await verifyLedger(t.file))).toMatchObject({ code: 'malformed', line: 4 });
    await write([...lines, next({})]);
    expect(await verifyLedger(t.file)).toMatchObject({ ok: true, counters: { events: 4 } });
    const checkpoint = {
      kind: 'checkpoint',
      prev_seq: 3,
      prev_segment: 'audit.jsonl.segment-x',
      prev_digest: last['hash'],
      retained: 0,
    };
    const cp = { v: 1, seq: 4, ts: last['ts'], prev_hash: last['hash'], ...checkpoint };
    await write([...lines, canonicalJson({ ...cp, hash: sha256Label(hashedBytes(cp)) })]);
    expect(problem(await verifyLedger(t.file))).toMatchObject({ code: 'rotation', line: 4 });
  });

  it('refuses odd segment names and reports a missing ledger', async () => {
    await writeFile(join(t.dir, 'audit.jsonl.segment-1-2'), '');
    expect(problem(await verifyLedger(t.file))).toMatchObject({ code: 'rotation', file: 'audit.jsonl.segment-1-2' });
    expect(problem(await verifyLedger(join(t.dir, 'other.jsonl')))?.code).toBe('missing');
    expect(problem(await verifyLedger(join(t.dir, 'no-dir', 'audit.jsonl')))?.code).toBe('missing');
  });

  it('an unusable public key is a usage problem, not a ledger problem', async () => {
    expect(problem(await verifyLedger(t.file, { publicKeys: { k: 'not a key' } }))?.code).toBe('usage');
  });
});
