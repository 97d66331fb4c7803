import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openLedger, runAuditVerify } from '../../src/audit/index.js';
import { generateSigningKey } from '../support/signing-key.js';
import { event, SALT, tempDir } from './helpers.js';

describe('runAuditVerify', () => {
  let t: Awaited<ReturnType<typeof tempDir>>;
  const key = generateSigningKey();
  let pub: string;
  beforeAll(async () => {
    t = await tempDir();
    const l = await openLedger({ dir: t.dir, salt: SALT, signingKey: key });
    for (let i = 0; i < 3; i++) await l.append(event(i));
    await l.close();
    pub = join(t.dir, 'key.pub.pem');
    await writeFile(pub, key.publicKeyPem);
  });
  afterAll(async () => {
    await t.cleanup();
  });

  it('exits 0 and prints counters for a good ledger (argv form, derived key id)', async () => {
    const out = await runAuditVerify([t.file, '--pubkey', pub, '--require-signed']);
    expect(out.exitCode).toBe(0);
    expect(out.lines[0]).toBe('audit ledger verified');
    expect(out.lines.join('\n')).toContain('entries: 3 (events: 3, checkpoints: 0)');
    expect(out.lines.join('\n')).toContain('signed: 3, unsigned: 0');
  });

  it('accepts keyId=path and the options form', async () => {
    const out = await runAuditVerify({ file: t.file, pubkey: [`${key.keyId}=${pub}`], requireSigned: true });
    expect(out.exitCode).toBe(0);
  });

  it('says when signatures were not checked', async () => {
    const out = await runAuditVerify([t.file]);
    expect(out.exitCode).toBe(0);
    expect(out.lines.join('\n')).toMatch(/NOT checked/);
  });

  it('exits 3 with the problem and its line for a tampered or missing ledger', async () => {
    const other = generateSigningKey();
    const otherPub = join(t.dir, 'other.pub.pem');
    await writeFile(otherPub, other.publicKeyPem);
    const out = await runAuditVerify([t.file, '--pubkey', `${key.keyId}=${otherPub}`]);
    expect(out.exitCode).toBe(3);
    expect(out.lines[0]).toBe('audit ledger FAILED: bad_signature: signature does not verify (audit.jsonl:1)');
    expect((await runAuditVerify([join(t.dir, 'nope', 'audit.jsonl')])).exitCode).toBe(3);
  });

  it('exits 2 on usage errors', async () => {
    expect((await runAuditVerify([])).exitCode).toBe(2);
    expect((await runAuditVerify([t.file, '--bogus'])).exitCode).toBe(2);
    expect((await runAuditVerify([t.file, '--pubkey', join(t.dir, 'missing.pem')])).exitCode).toBe(2);
    expect((await runAuditVerify([t.file, '--require-signed'])).exitCode).toBe(2);
    const notAKey = join(t.dir, 'x.pem');
    await writeFile(notAKey, 'hello');
    expect((await runAuditVerify([t.file, '--pubkey', notAKey])).exitCode).toBe(2);
  });
});
