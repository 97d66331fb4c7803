// Issue 9 item 9: files that exist only in the working tree (untracked, ignored) could be probed by a push
// ("uncommitted changes" vs success) and were silently overwritten or deleted by one. Rule: a push onto a
// checked-out branch never overwrites or removes anything uncommitted; when a written path (or anything below it)
// holds uncommitted work of any kind it is refused with one message that does not say which kind, or whether the
// path was tracked. The residual (refused vs committed for the agent's own paths) is in SPEC §8.
import { readFile, writeFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { makeRepo, type GitDir } from '../support/gitdir.js';
import { startTestServer, type Agent, type TestServer } from '../support/server.js';

let repo: GitDir;
let srv: TestServer;
let agent: Agent;

beforeAll(async () => {
  repo = await makeRepo([{ message: 'init', files: { 'app/a.ts': 'a\n', '.gitignore': '*.log\nbuild/\n' } }]);
  srv = await startTestServer();
  await srv.perimeter({ id: 'app', repo: repo.dir, read: ['app/**'], write: ['app/**'] });
  agent = await srv.connect('/mcp/app');
  await writeFile(join(repo.dir, 'app/untracked.ts'), 'UNTRACKED\n');
  await writeFile(join(repo.dir, 'app/run.log'), 'IGNORED\n');
  await mkdir(join(repo.dir, 'app/build'), { recursive: true });
  await writeFile(join(repo.dir, 'app/build/out.js'), 'IGNORED DIR\n');
  await mkdir(join(repo.dir, 'app/scratch'), { recursive: true });
  await writeFile(join(repo.dir, 'app/scratch/x.ts'), 'UNTRACKED DIR\n');
  await writeFile(join(repo.dir, 'app/a.ts'), 'DIRTY\n');
}, 60_000);

afterAll(async () => {
  await agent?.close();
  await srv?.close();
  await repo?.cleanup();
});

const push = (path: string) => agent.call('push_files', { message: 'x', files: [{ path, content: 'agent\n' }] });

it('refuses writes over untracked, ignored and dirty paths with one message, destroying nothing', async () => {
  const head = await repo.head();
  const texts: string[] = [];
  for (const path of [
    'app/untracked.ts',
    'app/run.log',
    'app/build',
    'app/scratch',
    'app/a.ts',
    'app/build/out.js',
    'app/untracked.ts/below',
  ]) {
    const r = await push(path);
    expect(r.isError, `${path}: ${r.text}`).toBe(true);
    texts.push(r.text.split(path).join('P'));
  }
  expect(new Set(texts).size).toBe(1);
  expect(await repo.head()).toBe(head);
  expect(await readFile(join(repo.dir, 'app/untracked.ts'), 'utf8')).toBe('UNTRACKED\n');
  expect(await readFile(join(repo.dir, 'app/run.log'), 'utf8')).toBe('IGNORED\n');
  expect(await readFile(join(repo.dir, 'app/build/out.js'), 'utf8')).toBe('IGNORED DIR\n');
  expect(await readFile(join(repo.dir, 'app/scratch/x.ts'), 'utf8')).toBe('UNTRACKED DIR\n');
  expect(await readFile(join(repo.dir, 'app/a.ts'), 'utf8')).toBe('DIRTY\n');
});

it('still writes a path where nothing uncommitted lives, also beside untracked files in an untracked directory', async () => {
  for (const path of ['app/fresh.ts', 'app/scratch/new.ts']) {
    const r = await push(path);
    expect(r.isError, r.text).toBeFalsy();
    expect(await readFile(join(repo.dir, path), 'utf8')).toBe('agent\n');
  }
  expect(await readFile(join(repo.dir, 'app/untracked.ts'), 'utf8')).toBe('UNTRACKED\n');
  expect(await readFile(join(repo.dir, 'app/scratch/x.ts'), 'utf8')).toBe('UNTRACKED DIR\n');
});
