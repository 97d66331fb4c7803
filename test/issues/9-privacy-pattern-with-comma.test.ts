// Privacy leak: an extra privacy pattern whose piece could not be joined into the zones' brace groups (a literal
// comma, a bracket class holding one, escaped braces, alternatives of different lengths) fell back to the piece alone,
// anchored at the root: `**/a,b` hid `a,b` but not `d/a,b`, and `**/{a,b/c}` hid nothing at all.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { makeRepo, type GitDir } from '../support/gitdir.js';
import { startTestServer, type TestServer } from '../support/server.js';

let repo: GitDir;
let srv: TestServer;

const HIDDEN = ['a,b', 'd/a,b', 'd/e/a,b', 'd/x/q,r', 'k,l/f.txt', 'd/k,l/f.txt', 'd/m,n', 'd/s', 'd/t/u'];

beforeAll(async () => {
  const files: Record<string, string> = { 'd/ok.txt': 'ok\n' };
  for (const p of HIDDEN) files[p] = `secret ${p}\n`;
  repo = await makeRepo([{ message: 'init', files }]);
  srv = await startTestServer();
  await srv.perimeter({
    id: 'app',
    repo: repo.dir,
    read: ['**'],
    write: [],
    private: ['**/a,b', '**/x/q,r', '**/k,l/**', '**/m[,]n', '**/{s,t/u}'],
  });
});

afterAll(async () => {
  await srv?.close();
  await repo?.cleanup();
});

it('hides every spelling at every depth, answering get_file byte-for-byte like a missing path', async () => {
  const a = await srv.connect('/mcp/app');
  const missing = JSON.stringify(await a.call('get_file', { path: 'd/nope' }))
    .split('d/nope')
    .join('P');
  for (const path of HIDDEN) {
    const r = await a.call('get_file', { path });
    expect([path, JSON.stringify(r).split(path).join('P')]).toEqual([path, missing]);
  }
  expect((await a.call('get_file', { path: 'd/ok.txt' })).isError).not.toBe(true);
});

it('lists none of them in a recursive tree', async () => {
  const a = await srv.connect('/mcp/app');
  const r = await a.call('get_tree', { path: '', recursive: true });
  const text = JSON.stringify(r);
  expect(text).toContain('d/ok.txt');
  for (const p of ['a,b', 'q,r', 'k,l', 'm,n', 'd/s', 't/u']) expect([p, text.includes(p)]).toEqual([p, false]);
});
