// Issue 10 (agents and the bridge): push_files onto a checked-out branch was refused when ANY tracked file was
// dirty, told the agent to commit or stash (it cannot), and so revealed working-tree state outside its window. Now
// only the paths being written must be clean; the rest of the working tree is carried over, as `read-tree -m -u`
// does, and the refusal names only the agent's own paths. (Local upstream only: GitHub has no working tree.)
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { makeRepo, type GitDir } from '../support/gitdir.js';
import { startTestServer, type Agent, type TestServer } from '../support/server.js';

let repo: GitDir;
let srv: TestServer;
let agent: Agent;

beforeAll(async () => {
  repo = await makeRepo([
    { message: 'init', files: { 'app/a.ts': 'a\n', 'app/b.ts': 'b\n', 'notes/todo.md': 'todo\n' } },
  ]);
  srv = await startTestServer();
  await srv.perimeter({ id: 'app', repo: repo.dir, read: ['app/**'], write: ['app/**'] });
  agent = await srv.connect('/mcp/app');
  // The operator's own work in progress, outside the agent's window, and one file inside it.
  await writeFile(join(repo.dir, 'notes/todo.md'), 'todo, edited\n');
  await writeFile(join(repo.dir, 'app/a.ts'), 'a, edited by the operator\n');
}, 60_000);

afterAll(async () => {
  await agent?.close();
  await srv?.close();
  await repo?.cleanup();
});

it('writes a clean path while other tracked files are dirty, carrying them over', async () => {
  const r = await agent.call('push_files', { message: 'b', files: [{ path: 'app/b.ts', content: 'b2\n' }] });
  expect(r.isError, r.text).toBeFalsy();
  expect(await readFile(join(repo.dir, 'app/b.ts'), 'utf8')).toBe('b2\n');
  expect(await readFile(join(repo.dir, 'notes/todo.md'), 'utf8')).toBe('todo, edited\n');
  expect(await readFile(join(repo.dir, 'app/a.ts'), 'utf8')).toBe('a, edited by the operator\n');
  expect((await repo.git('status', '--porcelain')).split('\n').filter(Boolean).sort()).toEqual([
    ' M app/a.ts',
    ' M notes/todo.md',
  ]);
});

it('refuses a write or a delete of a dirty path, naming only the agent paths, and changes nothing', async () => {
  const head = await repo.head();
  for (const args of [
    { message: 'a', files: [{ path: 'app/a.ts', content: 'mine\n' }] },
    { message: 'a', files: [{ path: 'app/c.ts', content: 'c\n' }], delete: ['app/a.ts'] },
  ]) {
    const r = await agent.call('push_files', args);
    expect(r.isError).toBe(true);
    expect(r.text).toMatch(/"app\/a\.ts"/);
    expect(r.text).not.toMatch(/notes|todo|stash|commit them/);
    expect(await repo.head()).toBe(head);
    expect(await readFile(join(repo.dir, 'app/a.ts'), 'utf8')).toBe('a, edited by the operator\n');
  }
});
