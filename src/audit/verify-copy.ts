// The store-copy verifier (issue 21): every instance's chain as the store holds it, checked entry by entry like the
// files (form, canonical bytes, hash, signature), then position (seq runs on without a gap from the chain's start),
// chain (prev_hash) and the shipped head (nothing missing at the end, nothing past it). The columns a query filters on
// are checked against the line, so an edited column cannot steer a query either. Checkpoints continue the chain but
// their file digests cannot be checked here: the segment files stay on the instance's disk. The store's retention
// deletes whole segments, so a pruned copy starts at a checkpoint, as a pruned ledger does.
import type { KeyObject } from 'node:crypto';
import type { AuditCopy, AuditCopyEntry, AuditCopyInstance } from '../state/types.js';
import { checkEntry } from './entry.js';
import { loadPublicKeys } from './keys.js';
import type { LedgerRecord } from './record.js';
import type { VerifyProblemCode } from './verify.js';

/** One instance's outcome; `seq` names the entry at fault. */
export type CopyReport =
  | { instance: string; ok: true; entries: number; firstSeq?: number; lastSeq?: number; startsAfterPruning: boolean }
  | { instance: string; ok: false; entries: number; code: VerifyProblemCode; message: string; seq?: number };

/** Every instance's outcome, or a usage problem (a bad key). */
export type CopyVerifyOutcome =
  { ok: true; reports: CopyReport[]; signaturesChecked: boolean } | { ok: false; usage: string };

const PAGE = 1000;

class Stop extends Error {
  readonly code: VerifyProblemCode;
  readonly seq: number | undefined;
  constructor(code: VerifyProblemCode, message: string, seq?: number) {
    super(message);
    this.code = code;
    this.seq = seq;
  }
}

const sameTime = (a: string, b: string): boolean => Date.parse(a) === Date.parse(b);

/** The copied-out columns must say what the line says. */
function checkColumns(row: AuditCopyEntry, rec: LedgerRecord): void {
  const ev = rec.kind === 'event' ? rec : undefined;
  const differs =
    row.seq !== rec.seq ||
    row.kind !== rec.kind ||
    !sameTime(row.ts, rec.ts) ||
    row.perimeter !== (ev?.perimeter ?? null) ||
    row.tool !== (ev?.tool ?? null) ||
    row.client !== (ev?.client ?? null) ||
    row.verdict !== (ev?.verdict ?? null);
  if (differs) throw new Stop('hash_mismatch', `the store's columns of entry ${row.seq} differ from its line`, row.seq);
}

async function verifyOne(
  copy: Pick<AuditCopy, 'chain'>,
  inst: AuditCopyInstance,
  keys: ReadonlyMap<string, KeyObject>,
  requireSigned: boolean,
  sig: { checked: boolean },
): Promise<CopyReport> {
  let entries = 0;
  let firstSeq: number | undefined;
  let last: { seq: number; hash: string } | undefined;
  let startsAfterPruning = false;
  try {
    for (let after = 0; ;) {
      const page = await copy.chain(inst.instance, after, PAGE);
      for (const row of page) {
        const checked = checkEntry(row.line, keys, requireSigned);
        if (!checked.ok) throw new Stop(checked.code, `entry ${row.seq}: ${checked.message}`, row.seq);
        if (checked.signed && !checked.sigChecked) sig.checked = false;
        const rec = checked.rec;
        checkColumns(row, rec);
        if (last === undefined) {
          if (rec.seq === 1) {
            if (rec.prev_hash !== 'genesis') throw new Stop('chain_broken', 'entry 1 does not start the chain', 1);
          } else if (rec.kind === 'checkpoint' && rec.prev_seq === rec.seq - 1) {
            // Shipping began after the instance had pruned older segments: the chain starts at this checkpoint.
            startsAfterPruning = true;
          } else {
            throw new Stop('sequence', `the copy starts at entry ${rec.seq}: entries before it are missing`, rec.seq);
          }
        } else {
          if (rec.seq !== last.seq + 1) {
            throw new Stop(
              'sequence',
              rec.seq > last.seq + 1
                ? `entries ${last.seq + 1}..${rec.seq - 1} are missing from the store's copy`
                : `entry ${rec.seq} is out of order after ${last.seq}`,
              rec.seq,
            );
          }
          if (rec.prev_hash !== last.hash)
            throw new Stop('chain_broken', `entry ${rec.seq}: prev_hash does not match the previous entry`, rec.seq);
          if (rec.kind === 'checkpoint' && rec.prev_seq !== rec.seq - 1)
            throw new Stop('sequence', `checkpoint ${rec.seq} does not follow its predecessor`, rec.seq);
        }
        firstSeq ??= rec.seq;
        last = { seq: rec.seq, hash: rec.hash };
        entries += 1;
      }
      const end = page.at(-1);
      if (end === undefined || page.length < PAGE) break;
      after = end.seq;
    }
    const head = inst.head;
    if (head === undefined) throw new Stop('missing', 'entries without a shipped head (not written by a shipper)');
    if (last === undefined || last.seq < head.seq)
      throw new Stop(
        'sequence',
        `entries ${(last?.seq ?? 0) + 1}..${head.seq} are missing (the shipped head is ${head.seq})`,
      );
    if (last.seq > head.seq)
      throw new Stop('sequence', `entries past the shipped head ${head.seq} (up to ${last.seq})`, head.seq + 1);
    if (last.hash !== head.hash)
      throw new Stop('chain_broken', `the last entry's hash differs from the shipped head's`, last.seq);
    return {
      instance: inst.instance,
      ok: true,
      entries,
      ...(firstSeq === undefined ? {} : { firstSeq }),
      lastSeq: last.seq,
      startsAfterPruning,
    };
  } catch (e) {
    if (!(e instanceof Stop)) throw e;
    return {
      instance: inst.instance,
      ok: false,
      entries,
      code: e.code,
      message: e.message,
      ...(e.seq === undefined ? {} : { seq: e.seq }),
    };
  }
}

/** Verifies every instance's chain in the store's copy. Store failures reject (the caller reports them). */
export async function verifyCopy(
  copy: Pick<AuditCopy, 'chain' | 'instances'>,
  o: { publicKeys?: Record<string, string>; requireSigned?: boolean } = {},
): Promise<CopyVerifyOutcome> {
  const keys = loadPublicKeys(o.publicKeys ?? {});
  if (!keys.ok) return { ok: false, usage: keys.message };
  const sig = { checked: true };
  const reports: CopyReport[] = [];
  const startOf = async (instance: string): Promise<number | undefined> => (await copy.chain(instance, 0, 1))[0]?.seq;
  for (const inst of await copy.instances()) {
    const start = await startOf(inst.instance);
    const report = await verifyOne(copy, inst, keys.value, o.requireSigned === true, sig);
    if (report.ok || (await startOf(inst.instance)) === start) {
      reports.push(report);
      continue;
    }
    // A retention sweep pruned the oldest segments (or the whole silent instance) while the pages were read, which
    // looks like a gap: read the copy as it is now, once.
    const now = (await copy.instances()).find((i) => i.instance === inst.instance);
    if (now !== undefined) reports.push(await verifyOne(copy, now, keys.value, o.requireSigned === true, sig));
  }
  return { ok: true, reports, signaturesChecked: sig.checked };
}
