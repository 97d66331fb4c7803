// Two real processes append to one ledger at once (with rotation): the chain must stay whole.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { openLedger, queryLedger, verifyLedger } from '../../src/audit/index.js';
import { event, SALT, tempDir } from './helpers.js';

const run = promisify(execFile);
const child = fileURLToPath(new URL('./fixtures/append-child.ts', import.meta.url));

describe('concurrent appenders', () => {
  it('two child processes and this one interleave into one valid chain', async () => {
    const t = await tempDir();
    const N = 25;
    const spawn = (tag: string) =>
      run(process.execPath, ['--import', 'tsx', child, t.dir, SALT.toString('hex'), String(N), tag, '4096'], {
        timeout: 20_000,
      });
    const here = await openLedger({ dir: t.dir, salt: SALT, maxBytes: 4096, keep: 1000 });
    const [a, b] = await Promise.all([
      spawn('proc-a'),
      spawn('proc-b'),
      (async () => {
        for (let i = 0; i < 10; i++) await here.append(event(i, { client: 'proc-main' }));
      })(),
    ]);
    await here.close();
    for (const out of [a, b]) {
      expect(JSON.parse(out.stdout)).toMatchObject({ ok: true, entries: N, failures: 0 });
      expect(out.stderr).toBe('');
    }
    expect(here.state()).toMatchObject({ ok: true, entries: 10 });

    const report = await verifyLedger(t.file);
    expect(report.ok ? null : report.problem).toBeNull();
    expect(report.counters.events).toBe(2 * N + 10);
    expect(report.counters.segments).toBeGreaterThan(1);

    const clients = new Map<string, number>();
    let interleaved = 0;
    let previous = '';
    for await (const e of queryLedger(t.file)) {
      const c = e.client ?? '';
      clients.set(c, (clients.get(c) ?? 0) + 1);
      if (previous !== '' && previous !== c) interleaved++;
      previous = c;
    }
    expect(Object.fromEntries(clients)).toEqual({ 'proc-a': N, 'proc-b': N, 'proc-main': 10 });
    // Not a guarantee of the scheduler, but with 90 appends the writers practically always alternate at least once.
    expect(interleaved).toBeGreaterThan(0);
    await t.cleanup();
  });
});
