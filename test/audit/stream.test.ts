// A 50k-entry ledger, written line by line here, verified by streaming: the counters must add up.
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/audit/canonical.js';
import { fileDigest, segmentName } from '../../src/audit/files.js';
import { verifyLedger, queryLedger } from '../../src/audit/index.js';
import { sealRecord, type CheckpointRecord } from '../../src/audit/record.js';
import { tempDir } from './helpers.js';

async function writeLines(path: string, lines: Iterable<string>): Promise<void> {
  const out = createWriteStream(path);
  for (const line of lines) if (!out.write(line)) await once(out, 'drain');
  out.end();
  await once(out, 'finish');
}

describe('bounded-memory verification', () => {
  it('verifies a 50,000-entry ledger across a rotation and reports exact counters', async () => {
    const t = await tempDir();
    const half = 25_000;
    let prevHash = 'genesis';
    const ts = '2025-04-01T00:00:00.000Z';
    // Lines are spelled out from the documented format (keys already in canonical order) rather than produced by the
    // writer: fast enough for 50k, and an independent check that a hand-built line verifies.
    const events = function* (from: number, to: number) {
      for (let seq = from; seq <= to; seq++) {
        const verdict = seq % 5 === 0 ? 'deny' : 'allow';
        const head = `{"bytes":${seq},"duration_ms":1,`;
        const tail =
          `"kind":"event","prev_hash":"${prevHash}","redaction":"clear","result":"ok","seq":${seq},` +
          `"surface":"agent","tool":"read_file","ts":"${ts}","v":1,"verdict":"${verdict}"}`;
        prevHash = `sha256:${createHash('sha256')
          .update(head + tail)
          .digest('hex')}`;
        yield `${head}"hash":"${prevHash}",${tail}\n`;
      }
    };
    const seg = segmentName('audit.jsonl', 1, half);
    await writeLines(join(t.dir, seg), events(1, half));
    const cp = sealRecord<CheckpointRecord>({
      v: 1,
      kind: 'checkpoint',
      seq: half + 1,
      ts,
      prev_seq: half,
      prev_segment: seg,
      prev_digest: await fileDigest(join(t.dir, seg)),
      retained: 1,
      prev_hash: prevHash,
    });
    prevHash = cp.hash;
    await writeLines(
      t.file,
      (function* () {
        yield `${canonicalJson(cp)}\n`;
        yield* events(half + 2, 2 * half + 1);
      })(),
    );
    expect((await stat(t.file)).size + (await stat(join(t.dir, seg))).size).toBeGreaterThan(10_000_000);

    const report = await verifyLedger(t.file);
    expect(report).toMatchObject({
      ok: true,
      counters: {
        files: 2,
        segments: 1,
        entries: 2 * half + 1,
        events: 2 * half,
        checkpoints: 1,
        unsigned: 2 * half + 1,
        signed: 0,
        firstSeq: 1,
        lastSeq: 2 * half + 1,
        lastHash: prevHash,
      },
    });

    let denied = 0;
    for await (const _ of queryLedger(t.file, { verdict: 'deny' })) denied++;
    expect(denied).toBe(10_000); // every fifth seq
    await t.cleanup();
  });
});
