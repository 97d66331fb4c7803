// Attacks on the fail-closed window of a shared store (issue 15): while the store is silent, every agent call gets one
// answer, byte for byte, whatever it asks (a readable, hidden or missing path, a write, another branch), so the
// refusal is no oracle on content or policy; nothing is served from the copy that may have been narrowed; the operator
// surface keeps working; and the answers come back by themselves once the store is heard again.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoreHealth } from '../../src/state/types.js';
import { makeRepo, type GitDir } from '../support/gitdir.js';
import { startTestServer, type Agent, type TestServer } from '../support/server.js';

let repo: GitDir;
let srv: TestServer;
let health: StoreHealth = { kind: 'live' };
let app: Agent;

beforeAll(async () => {
  repo = await makeRepo([{ message: 'init', files: { 'app/a.md': 'a\n', 'secret/key.pem': 'KEY\n' } }]);
  srv = await startTestServer({ health: () => health });
  await srv.perimeter({ id: 'app', repo: repo.dir, read: ['app/**'], write: ['app/**'] });
  app = await srv.connect('/mcp/app', 'auto');
});
afterAll(async () => {
  await app?.close();
  await srv?.close();
  await repo?.cleanup();
});

describe('a silent store', () => {
  it('answers every agent call the same, byte for byte, and serves nothing from its copy', async () => {
    expect((await app.call('get_file', { path: 'app/a.md' })).isError).toBeFalsy();
    health = { kind: 'silent', silentMs: 12_000 };
    try {
      const calls = await Promise.all([
        app.call('get_file', { path: 'app/a.md' }),
        app.call('get_file', { path: 'secret/key.pem' }),
        app.call('get_file', { path: 'app/missing.md' }),
        app.call('get_tree', {}),
        app.call('list_commits', {}),
        app.call('search_code', { query: 'KEY' }),
        app.call('push_files', { message: 'x', files: [{ path: 'app/b.md', content: 'b' }] }),
        app.call('push_files', { message: 'x', files: [{ path: 'secret/b.md', content: 'b' }] }),
        app.call('get_file', { path: '../etc/passwd' }),
      ]);
      for (const c of calls) {
        expect(c.isError).toBe(true);
        expect(c).toEqual(calls[0]);
      }
      expect(calls[0]!.text).toMatch(/^Unavailable: .*retry in a few seconds\.$/);
      expect(calls[0]!.text).not.toMatch(/app|secret|KEY/);
      // Nothing was written while refusing.
      expect((await repo.git('ls-tree', '-r', '--name-only', 'main')).split('\n').filter(Boolean).sort()).toEqual([
        'app/a.md',
        'secret/key.pem',
      ]);
      // The operator surface does not depend on the perimeters and stays available.
      const root = await srv.connect('/mcp/root', 'auto', {
        authorization: 'Bearer test-ops-token-0123456789abcdef0123',
      });
      expect((await root.call('get_file', { repo: repo.dir, path: 'secret/key.pem' })).isError).toBeFalsy();
      await root.close();
    } finally {
      health = { kind: 'live' };
    }
    expect((await app.call('get_file', { path: 'app/a.md' })).structured.content).toBe('a\n');
  });
});
