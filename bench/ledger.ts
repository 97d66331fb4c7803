// Audit ledger throughput: entries written per second when a burst of call entries arrives at once (what a busy server
// produces), on this machine's disk with its real fdatasync. Usage:
//   node --import tsx bench/ledger.ts [count] [module]   (module: the audit index to measure; default this tree's)
// To compare with an older ledger: `git archive <rev> src/audit | tar -x -C bench/.cache/old` and pass
// bench/.cache/old/src/audit/index.ts.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type * as AuditModule from '../src/audit/index.js';

const count = Number(process.argv[2] ?? 5000);
const modulePath = resolve(process.argv[3] ?? 'src/audit/index.ts');
const audit = (await import(pathToFileURL(modulePath).href)) as typeof AuditModule;
const dir = await mkdtemp(join(tmpdir(), 'gb-bench-ledger-'));
const ledger = await audit.openLedger({ dir: join(dir, 'audit'), salt: Buffer.alloc(32, 7), maxCalls: count + 1 });
const event = (i: number) => ({
  surface: 'agent' as const,
  perimeter: `p${i % 4}`,
  branch: 'main',
  tool: 'get_file',
  client: 'bench',
  verdict: 'allow' as const,
  result: 'ok',
  bytes: 120,
  durationMs: 1.5,
  paths: ['docs/a.md'],
});
const t0 = performance.now();
await Promise.all(Array.from({ length: count }, (_, i) => ledger.append(event(i))));
const ms = performance.now() - t0;
await ledger.close();
const state = ledger.state();
const report = await audit.verifyLedger(join(dir, 'audit', 'audit.jsonl'));
process.stdout.write(
  `${JSON.stringify({ module: process.argv[3] ?? 'src/audit', count, entries: state.entries, ms: Math.round(ms), entriesPerSecond: Math.round((state.entries * 1000) / ms), verified: report.ok })}\n`,
);
await rm(dir, { recursive: true, force: true });
