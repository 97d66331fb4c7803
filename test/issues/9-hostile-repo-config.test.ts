// Issue 9 item 6: a push onto a checked-out branch ran repository hooks as the server's user (core.hooksPath
// pointing at a tracked directory the agent rewrote). No repository setting may start a program: hooks, fsmonitor,
// pagers, external diff, textconv, filters (also from an included config the agent can write), merge drivers,
// credential helpers, ssh, gpg, editors. Every tool call, including pushes that update the working tree, runs against
// a repository that tries all of them, and the marker their program writes never appears.
import { readFile, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { makeRepo, type GitDir } from '../support/gitdir.js';
import { HOSTILE_FILES, makeHostile, markerScript, markerText } from '../support/hostile-config.js';
import { startTestServer, type Agent, type TestServer } from '../support/server.js';

let repo: GitDir;
let srv: TestServer;
let agent: Agent;
let marker: string;
let script: string;

beforeAll(async () => {
  repo = await makeRepo([
    { message: 'init', files: HOSTILE_FILES },
    { message: 'second', files: { 'a.txt': 'a2\n', 'b.pr': 'p2\n' } },
  ]);
  ({ marker, script } = await markerScript(join(repo.dir, '..')));
  await makeHostile(repo.dir, script);
  srv = await startTestServer();
  await srv.perimeter({ id: 'all', repo: repo.dir, read: ['**'], write: ['**'] });
  agent = await srv.connect('/mcp/all');
}, 60_000);

afterAll(async () => {
  await agent?.close();
  await srv?.close();
  await repo?.cleanup();
});

/** Makes every tracked file look touched, so a refresh has to read (and would filter) each one. */
async function touchAll(): Promise<void> {
  const later = new Date(Date.now() + 5_000);
  for (const f of Object.keys(HOSTILE_FILES)) await utimes(join(repo.dir, f), later, later).catch(() => undefined);
}

it('runs no program from the repository on any read', async () => {
  const head = await repo.head();
  const calls: [string, Record<string, unknown>][] = [
    ['get_tree', { path: '', recursive: true }],
    ['get_file', { path: 'a.txt' }],
    ['get_files', { paths: ['a.txt', 'b.pr', 'c.inc', '.gitattributes'] }],
    ['list_commits', {}],
    ['list_commits', { path: 'a.txt' }],
    ['get_commit', { sha: head }],
  ];
  for (const [tool, args] of calls) {
    const r = await agent.call(tool, args);
    expect(r.isError, `${tool}: ${r.text}`).toBeFalsy();
    expect(await markerText(marker), `${tool} started a program`).toBe('');
  }
});

it('runs no program on pushes onto the checked-out branch, including one that rewrites a hook and the included config', async () => {
  await touchAll();
  const pushes = [
    { message: 'plain', files: [{ path: 'a.txt', content: 'a3\n' }] },
    {
      message: 'process filter',
      files: [
        { path: 'b.pr', content: 'p3\n' },
        { path: 'new.pr', content: 'n\n' },
      ],
    },
    // The original attack: rewrite a hook in the tracked hooks directory, then push again so git would run it.
    {
      message: 'hook',
      files: [{ path: 'hooks/reference-transaction', content: `#!/bin/sh\nexec '${script}' rewritten\n` }],
    },
    // The included config is tracked: a new driver appears for the next command.
    {
      message: 'driver',
      files: [
        { path: 'tools/extra.gitconfig', content: `[filter "late"]\n\tsmudge = ${script}\n` },
        { path: '.gitattributes', content: '* filter=late\n' },
      ],
    },
    {
      message: 'after',
      files: [
        { path: 'a.txt', content: 'a4\n' },
        { path: 'c.inc', content: 'i2\n' },
      ],
    },
    { message: 'delete', files: [], delete: ['new.pr'] },
  ];
  for (const p of pushes) {
    await touchAll();
    const r = await agent.call('push_files', p);
    // .gitattributes is protected: that push is refused, and the refusal must not run anything either.
    if (p.message !== 'driver') expect(r.isError, `${p.message}: ${r.text}`).toBeFalsy();
    expect(await markerText(marker), `push "${p.message}" started a program`).toBe('');
  }
  // The working tree really moved, byte for byte (no smudge filter touched the content).
  expect(await readFile(join(repo.dir, 'a.txt'), 'utf8')).toBe('a4\n');
  expect(await readFile(join(repo.dir, 'b.pr'), 'utf8')).toBe('p3\n');
  expect(await readFile(join(repo.dir, 'hooks/reference-transaction'), 'utf8')).toContain('rewritten');
});

it('runs no program when the included config names a new driver and attributes use it', async () => {
  // The operator's working tree (not the agent) now names a driver through the tracked include.
  await writeFile(
    join(repo.dir, 'tools/extra.gitconfig'),
    `[filter "late"]\n\tsmudge = ${script}\n\tclean = ${script}\n`,
  );
  await writeFile(join(repo.dir, '.git/info/attributes'), '* filter=late\n');
  await touchAll();
  const r = await agent.call('push_files', { message: 'late', files: [{ path: 'a.txt', content: 'a5\n' }] });
  expect(r.isError, r.text).toBeFalsy();
  expect(await markerText(marker)).toBe('');
  expect(await readFile(join(repo.dir, 'a.txt'), 'utf8')).toBe('a5\n');
});
