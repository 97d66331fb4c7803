// Every way of editing a retained ledger that the chain promises to catch, on real files.
import { readdir, readFile, rename, rm, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/audit/canonical.js';
import { openLedger, verifyLedger, type VerifyReport } from '../../src/audit/index.js';
import { generateSigningKey } from '../support/signing-key.js';
import { hashedBytes, sha256Label } from '../../src/audit/record.js';
import { event, SALT, tempDir } from './helpers.js';

type Snapshot = Map<string, Buffer>;

async function snapshot(dir: string): Promise<Snapshot> {
  const snap: Snapshot = new Map();
  for (const name of await readdir(dir)) snap.set(name, await readFile(join(dir, name)));
  return snap;
}

async function restore(dir: string, snap: Snapshot): Promise<void> {
  for (const name of await readdir(dir)) if (!snap.has(name)) await rm(join(dir, name));
  for (const [name, bytes] of snap) await writeFile(join(dir, name), bytes);
}

/** Ledger files in chain order: segments (names sort by sequence), then the active file. */
const ordered = (snap: Snapshot): string[] => [
  ...[...snap.keys()].filter((n) => n.includes('.segment-')).sort(),
  'audit.jsonl',
];

const splitLines = (b: Buffer): string[] => b.toString('utf8').split('\n').slice(0, -1);
const joinLines = (ls: string[]): string => ls.map((l) => `${l}\n`).join('');

const key = generateSigningKey();
const publicKeys = { [key.keyId]: key.publicKeyPem };

describe.each([
  { name: 'signed, verified with its key', signed: true },
  { name: 'unsigned, hash chain only', signed: false },
])('tamper detection: $name', ({ signed }) => {
  let t: Awaited<ReturnType<typeof tempDir>>;
  let pristine: Snapshot;
  const opts = signed ? { publicKeys, requireSigned: true } : {};
  const verify = (): Promise<VerifyReport> => verifyLedger(t.file, opts);
  const expectBroken = async (what: string, restoreAll = true): Promise<VerifyReport> => {
    const r = await verify();
    expect(r.ok, what).toBe(false);
    if (restoreAll) await restore(t.dir, pristine);
    return r;
  };

  beforeAll(async () => {
    t = await tempDir();
    let clock = Date.parse('2025-03-01T00:00:00.000Z');
    const ledger = await openLedger({
      dir: t.dir,
      salt: SALT,
      maxBytes: 4096,
      keep: 100,
      now: () => new Date((clock += 1000)),
      ...(signed ? { signingKey: key } : {}),
    });
    for (let i = 0; i < 24; i++) await ledger.append(event(i));
    await ledger.close();
    await rm(`${t.file}.lock`, { force: true });
    pristine = await snapshot(t.dir);
  });
  afterAll(async () => {
    await t.cleanup();
  });

  it('a clean ledger with rotation verifies', async () => {
    const r = await verify();
    expect(r.ok).toBe(true);
    const c = r.counters;
    expect(c.segments).toBeGreaterThanOrEqual(2);
    expect(c.events).toBe(24);
    expect(c.checkpoints).toBe(c.segments);
    expect(c.entries).toBe(24 + c.segments);
    expect(c).toMatchObject({ firstSeq: 1, lastSeq: c.entries, startsAfterPruning: false });
    expect(signed ? c.signed : c.unsigned).toBe(c.entries);
  });

  it('changing any byte of any entry is detected (every line, several positions)', async () => {
    let cases = 0;
    const codes = new Set<string>();
    for (const name of ordered(pristine)) {
      const original = pristine.get(name) as Buffer;
      let start = 0;
      while (start < original.length) {
        const end = original.indexOf(10, start);
        const len = end - start;
        for (const at of new Set([1, Math.floor(len / 2), len - 70, len - 2])) {
          const bytes = Buffer.from(original);
          const pos = start + at;
          bytes[pos] = (bytes[pos] as number) ^ 0x01;
          await writeFile(join(t.dir, name), bytes);
          const r = await expectBroken(`${name} byte ${at} of the line at ${start}`, false);
          if (!r.ok) codes.add(r.problem.code);
          cases++;
        }
        start = end + 1;
      }
      await writeFile(join(t.dir, name), original);
    }
    expect(cases).toBeGreaterThan(100);
    // The loop reaches every layer: JSON form, field schema/hash, and (signed) the signature itself.
    expect(codes).toContain('malformed');
    expect(codes).toContain('hash_mismatch');
    if (signed) expect(codes).toContain('bad_signature');
  });

  it('deleting an entry is detected, in the active file and in a segment', async () => {
    for (const name of [ordered(pristine)[1] as string, 'audit.jsonl']) {
      const ls = splitLines(pristine.get(name) as Buffer);
      ls.splice(2, 1);
      await writeFile(join(t.dir, name), joinLines(ls));
      expect((await expectBroken(`delete in ${name}`)).ok).toBe(false);
    }
  });

  it('reordering two entries and duplicating one are detected', async () => {
    const ls = splitLines(pristine.get('audit.jsonl') as Buffer);
    const swapped = [...ls];
    [swapped[1], swapped[2]] = [swapped[2] as string, swapped[1] as string];
    await writeFile(t.file, joinLines(swapped));
    const r = await expectBroken('reorder');
    expect(r.ok === false && r.problem.code).toBe('sequence');
    await writeFile(t.file, joinLines([...ls.slice(0, 2), ls[1] as string, ...ls.slice(2)]));
    await expectBroken('duplicate');
  });

  it('truncating a rotated segment is detected, at a line boundary or mid-line', async () => {
    const seg = ordered(pristine)[0] as string;
    const ls = splitLines(pristine.get(seg) as Buffer);
    await writeFile(join(t.dir, seg), joinLines(ls.slice(0, -1)));
    const r = await expectBroken('truncated segment');
    expect(r.ok === false && r.problem.code).toBe('rotation');
    await writeFile(join(t.dir, seg), (pristine.get(seg) as Buffer).subarray(0, 1000));
    await expectBroken('segment cut mid-line');
  });

  it('swapping two segments is detected (by name and by content)', async () => {
    const [a, b] = ordered(pristine) as [string, string];
    await writeFile(join(t.dir, a), pristine.get(b) as Buffer);
    await writeFile(join(t.dir, b), pristine.get(a) as Buffer);
    await expectBroken('swapped contents');
  });

  it('deleting a middle segment or the oldest one is detected', async () => {
    const names = ordered(pristine);
    await unlink(join(t.dir, names[1] as string));
    await expectBroken('middle segment deleted');
    await unlink(join(t.dir, names[0] as string));
    const r = await expectBroken('oldest segment deleted');
    expect(r.ok === false && r.problem.code).toBe('rotation');
  });

  it('a renamed segment whose name no longer matches its content is detected', async () => {
    const seg = ordered(pristine)[0] as string;
    await rename(
      join(t.dir, seg),
      join(
        t.dir,
        seg.replace(/-(\d{20})$/, (_m, d: string) => `-${String(Number(d) + 1).padStart(20, '0')}`),
      ),
    );
    await expectBroken('renamed segment');
  });
});

describe('signatures', () => {
  let t: Awaited<ReturnType<typeof tempDir>>;
  beforeAll(async () => {
    t = await tempDir();
  });
  afterAll(async () => {
    await t.cleanup();
  });

  it('a wrong key, an unknown key id, a stripped signature and an unsigned ledger in strict mode all fail', async () => {
    const ledger = await openLedger({ dir: t.dir, salt: SALT, signingKey: key });
    for (let i = 0; i < 3; i++) await ledger.append(event(i));
    await ledger.close();
    const other = generateSigningKey();
    const wrong = await verifyLedger(t.file, { publicKeys: { [key.keyId]: other.publicKeyPem } });
    expect(wrong.ok === false && wrong.problem).toMatchObject({ code: 'bad_signature', line: 1 });
    const unknown = await verifyLedger(t.file, { publicKeys: { [other.keyId]: other.publicKeyPem } });
    expect(unknown.ok === false && unknown.problem.code).toBe('unknown_key');

    // Strip the last entry's signature and re-hash it (nothing follows it, so the chain still holds):
    // only strict mode can tell that an entry of a signed ledger was replaced by an unsigned one.
    const original = await readFile(t.file, 'utf8');
    const ls = original.split('\n').slice(0, -1);
    const last = JSON.parse(ls[2] as string) as Record<string, unknown>;
    delete last['sig'];
    delete last['key_id'];
    delete last['hash'];
    ls[2] = canonicalJson({ ...last, hash: sha256Label(hashedBytes(last)) });
    await writeFile(t.file, joinLines(ls));
    expect(await verifyLedger(t.file, { publicKeys })).toMatchObject({
      ok: true,
      counters: { signed: 2, unsigned: 1 },
    });
    const r = await verifyLedger(t.file, { publicKeys, requireSigned: true });
    expect(r.ok === false && r.problem).toMatchObject({ code: 'unsigned', line: 3 });
    await writeFile(t.file, original);

    const u = await tempDir();
    const plain = await openLedger({ dir: u.dir, salt: SALT });
    await plain.append(event(0));
    await plain.close();
    expect(await verifyLedger(u.file)).toMatchObject({ ok: true, counters: { unsigned: 1 } });
    const strict = await verifyLedger(u.file, { publicKeys, requireSigned: true });
    expect(strict.ok === false && strict.problem).toMatchObject({ code: 'unsigned', file: 'audit.jsonl', line: 1 });
    await u.cleanup();
  });

  it('rotated keys co-exist: the verifier takes a map of key ids', async () => {
    const v = await tempDir();
    const second = generateSigningKey();
    for (const k of [key, second]) {
      const l = await openLedger({ dir: v.dir, salt: SALT, signingKey: k });
      await l.append(event(0));
      await l.close();
    }
    const both = { [key.keyId]: key.publicKeyPem, [second.keyId]: second.publicKeyPem };
    expect(await verifyLedger(v.file, { publicKeys: both, requireSigned: true })).toMatchObject({
      ok: true,
      counters: { signed: 2 },
    });
    const onlyFirst = await verifyLedger(v.file, { publicKeys, requireSigned: true });
    expect(onlyFirst.ok === false && onlyFirst.problem).toMatchObject({ code: 'unknown_key', line: 2 });
    await v.cleanup();
  });
});

describe('retention', () => {
  it('keeps at most `keep` segments and the oldest retained one starts after pruning', async () => {
    const t = await tempDir();
    const ledger = await openLedger({ dir: t.dir, salt: SALT, maxBytes: 4096, keep: 2, minAgeMs: 0, signingKey: key });
    for (let i = 0; i < 40; i++) await ledger.append(event(i));
    await ledger.close();
    const segs = (await readdir(t.dir)).filter((n) => n.includes('.segment-'));
    expect(segs).toHaveLength(2);
    const r = await verifyLedger(t.file, { publicKeys, requireSigned: true });
    expect(r).toMatchObject({
      ok: true,
      counters: { segments: 2, events: expect.any(Number), startsAfterPruning: true },
    });
    expect(r.counters.firstSeq).toBeGreaterThan(1);
    await t.cleanup();
  });
});
