// Issue 14: the web console's "recent audit entries" come from the real ledger, newest first, without paths.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { openAudit } from '../../src/cli/audit.js';

const dirs: string[] = [];
afterAll(async () => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));

it('recent(n) answers the newest n events of the ledger, newest first, with no paths', async () => {
  const state = await mkdtemp(join(tmpdir(), 'gb-console-audit-'));
  dirs.push(state);
  const audit = await openAudit(
    { dir: join(state, 'audit'), clearPaths: true },
    new Uint8Array(32).fill(7),
    () => undefined,
  );
  expect(await audit.recent(5)).toEqual([]);
  for (const tool of ['get_file', 'get_tree', 'push_files']) {
    await audit.ledger.append({
      surface: 'agent',
      perimeter: 'app',
      branch: 'main',
      tool,
      verdict: 'allow',
      result: 'ok',
      bytes: 1,
      durationMs: 1,
      paths: ['secret/path.txt'],
    });
  }
  const recent = await audit.recent(2);
  expect(recent.map((e) => e.tool)).toEqual(['push_files', 'get_tree']);
  expect(recent[0]).toMatchObject({
    surface: 'agent',
    perimeter: 'app',
    branch: 'main',
    verdict: 'allow',
    result: 'ok',
  });
  expect(JSON.stringify(recent)).not.toContain('secret/path.txt');
  await audit.ledger.close();
});
