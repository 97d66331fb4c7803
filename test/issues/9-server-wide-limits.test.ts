// Issue 9 item 5: the resource bounds are configurable server-wide (the config file's top-level `limits`, the
// defaults of every perimeter) and per perimeter (its own `limits` win).
import { afterAll, beforeAll, expect, it } from 'vitest';
import { parseConfig } from '../../src/cli/config.js';
import { DEFAULT_LIMITS } from '../../src/mcp/index.js';
import { makeRepo, type GitDir } from '../support/gitdir.js';
import { startTestServer, type TestServer } from '../support/server.js';

let repo: GitDir;
let srv: TestServer;

beforeAll(async () => {
  repo = await makeRepo([{ message: 'init', files: { 'app/three-k.txt': 'x'.repeat(3 * 1024) } }]);
  srv = await startTestServer({ policy: { defaultLimits: { ...DEFAULT_LIMITS, max_answer_bytes: 2048 } } });
  await srv.perimeter({ id: 'plain', repo: repo.dir, read: ['app/**'], write: [] });
  await srv.perimeter({ id: 'roomy', repo: repo.dir, read: ['app/**'], write: [], limits: { max_answer_bytes: 8192 } });
});

afterAll(async () => {
  await srv?.close();
  await repo?.cleanup();
});

it('reads server-wide limits from the config file and names a bad one', () => {
  const ok = parseConfig('limits:\n  max_answer_bytes: 4096\n  concurrent_calls: 2\nperimeters: {}\n', '/c', '/h');
  expect(ok.config?.limits).toEqual({ max_answer_bytes: 4096, concurrent_calls: 2 });
  const bad = parseConfig('limits:\n  max_answer_bytes: 10\n  burst: 3\n', '/c', '/h');
  expect(bad.errors.join('\n')).toMatch(/limits/);
});

it("applies the server's default cap, and a perimeter's own limit over it", async () => {
  const plain = await srv.connect('/mcp/plain');
  const refused = await plain.call('get_file', { path: 'app/three-k.txt' });
  expect(refused.isError).toBe(true);
  expect(refused.text).toContain('2048-byte answer cap');
  const roomy = await srv.connect('/mcp/roomy');
  expect((await roomy.call('get_file', { path: 'app/three-k.txt' })).structured.size).toBe(3 * 1024);
});
