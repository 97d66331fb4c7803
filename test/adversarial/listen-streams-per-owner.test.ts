// Attack: one agent holds as many 2026-07-28 `subscriptions/listen` streams as the server will open, to refuse
// everyone else's. With one SDK handler shared by the whole app its listen router capped every perimeter together,
// so a refusal told an agent that others held streams. Each owner (agent key) now has its own handler and cap: the
// flooding key is refused past its own cap, and another perimeter's key still opens its stream and is answered.
// Real server, real repository, real SDK clients.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { MAX_LISTENS_PER_OWNER } from '../../src/http/modern-handler.js';
import { makeRepo, type GitDir } from '../support/gitdir.js';
import { bearer, perimeterWithKey, startTestServer, type Agent, type TestServer } from '../support/server.js';

let source: GitDir;
let srv: TestServer;
const keys: Record<'flood' | 'quiet', string> = { flood: '', quiet: '' };

beforeAll(async () => {
  source = await makeRepo([{ message: 'init', files: { 'a/x.txt': 'A\n', 'b/y.txt': 'B\n' } }]);
  srv = await startTestServer({ openPerimeters: false });
  for (const [side, dir] of [
    ['flood', 'a'],
    ['quiet', 'b'],
  ] as const)
    keys[side] = await perimeterWithKey(srv, { id: side, repo: source.dir, read: [`${dir}/**`] }, `${side}-agent`);
}, 60_000);

afterAll(async () => {
  await srv?.close();
  await source?.cleanup();
});

it('caps listen streams per key: a flood past its own cap is refused, another perimeter still listens', async () => {
  const flood = await srv.connect('/mcp/flood', 'auto', bearer(keys.flood));
  const quiet = await srv.connect('/mcp/quiet', 'auto', bearer(keys.quiet));
  const held: { close(): Promise<void> }[] = [];
  try {
    for (let i = 0; i < MAX_LISTENS_PER_OWNER; i++) held.push(await flood.client.listen({ toolsListChanged: true }));
    // The flooding key's own next stream is refused...
    await expect(flood.client.listen({ toolsListChanged: true })).rejects.toThrow(/limit/i);
    // ...and the quiet perimeter's key is untouched by it: its stream opens and its calls are answered.
    const sub = await quiet.client.listen({ toolsListChanged: true });
    held.push(sub);
    expect((await quiet.call('get_file', { path: 'b/y.txt' })).text).toBe('B\n');
    // The flooding agent's calls are still answered too (only its streams are capped).
    expect((await flood.call('get_file', { path: 'a/x.txt' })).text).toBe('A\n');
  } finally {
    await Promise.all(held.map((h) => h.close().catch(() => undefined)));
    await Promise.all([flood, quiet].map((a: Agent) => a.close()));
  }
}, 60_000);
