// Issue 19, class 4: the content checks of propose_commit read what git would store (for a link, its target text)
// and never follow a link, and a refusal never reports on bytes the agent cannot read. Twins inside one working
// tree: a link to a hidden file holding a credential and a link to a hidden file without one; a write-only file with
// and without one; a path through a linked directory. Each pair must answer alike; approval decides in the
// operator's view.
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLocalWorkspace } from '../../src/workspace/localfs/index.js';
import { createWorkTreeWriters } from '../../src/workspace/localfs/writes/index.js';
import { makeRepo, type GitDir } from '../support/gitdir.js';
import { startTestServer, type Agent, type TestServer } from '../support/server.js';

const TOKEN = `ghp_${'a1B2c3D4e5'.repeat(3)}abcdef`;
let repo: GitDir;
let srv: TestServer;
let linked: string;
let tree: string;
let agent: Agent;

beforeAll(async () => {
  repo = await makeRepo([
    { message: 'init', files: { 'app/a.ts': 'a\n', 'secret/plain.txt': 'nothing\n', 'drop/keep.txt': 'k\n' } },
  ]);
  await repo.git('branch', 'work');
  linked = await mkdtemp(join(tmpdir(), 'gb-19scan-'));
  tree = join(linked, 'work');
  await repo.git('worktree', 'add', '-q', tree, 'work');
  await writeFile(join(tree, 'secret/key.txt'), `export const k = "${TOKEN}";\n`);
  await writeFile(join(tree, 'secret/none.txt'), 'export const k = "nothing here";\n');
  await symlink('../secret/key.txt', join(tree, 'app/to-key'));
  await symlink('../secret/none.txt', join(tree, 'app/to-none'));
  await symlink('../secret', join(tree, 'app/dir'));
  await mkdir(join(tree, 'drop'), { recursive: true });
  await writeFile(join(tree, 'drop/w-key.txt'), `token = "${TOKEN}"\n`);
  await writeFile(join(tree, 'drop/w-none.txt'), 'token = "none"\n');
  srv = await startTestServer({ workspace: createLocalWorkspace(), proposals: {} });
  await srv.perimeter({
    id: 'app',
    repo: repo.dir,
    read: ['app/**'],
    write: ['app/**', 'drop/**'],
    branches: ['work'],
  });
  agent = await srv.connect('/mcp/app/work');
}, 60_000);

afterAll(async () => {
  await srv?.close();
  await repo?.cleanup();
  if (linked) await rm(linked, { recursive: true, force: true });
});

/** The answer to proposing a commit of `path`, with the path and the proposal id masked. */
const propose = async (path: string) => {
  const r = await agent.call('propose_commit', { message: 'm', paths: [path], reason: 'r' });
  const id = r.structured?.proposal_id as string | undefined;
  const mask = (s: string) => (id === undefined ? s : s.split(id).join('ID')).split(path).join('P');
  return {
    id,
    isError: r.isError ?? false,
    answer: JSON.stringify({
      isError: r.isError ?? false,
      text: mask(r.text),
      structured: r.structured ? mask(JSON.stringify(r.structured)) : null,
    }),
  };
};

describe('issue 19: content checks of a proposal never follow a link', () => {
  it('a link to a hidden file with a credential answers like a link to one without', async () => {
    const key = await propose('app/to-key');
    const none = await propose('app/to-none');
    expect(key.answer).not.toMatch(/ghp_|line \d|credential|secret/i);
    expect(key.answer).toBe(none.answer);
    expect(key.isError).toBe(false);
  });

  it('a path through a linked directory answers like its twin', async () => {
    const key = await propose('app/dir/key.txt');
    const none = await propose('app/dir/none.txt');
    expect(key.answer).not.toMatch(/ghp_|line \d|credential/i);
    expect(key.answer).toBe(none.answer);
  });

  it('a write-only file with a credential answers like one without; approval refuses it in the operator’s view', async () => {
    const key = await propose('drop/w-key.txt');
    const none = await propose('drop/w-none.txt');
    expect(key.answer).not.toMatch(/ghp_|line \d|credential/i);
    expect(key.answer).toBe(none.answer);
    const before = await repo.git('rev-parse', 'work');
    const done = await srv.proposals!.approve(key.id!, 'op');
    expect(done.ok && done.value.status).toBe('failed');
    expect(done.ok && done.value.status === 'failed' && done.value.reason).toMatch(/credential/);
    expect(done.ok && done.value.status === 'failed' && done.value.reason).not.toContain('ghp_');
    expect(await repo.git('rev-parse', 'work')).toBe(before);
  });

  it('a readable file with a credential is still refused at once, with the finding', async () => {
    await writeFile(join(tree, 'app/k.ts'), `export const k = "${TOKEN}";\n`);
    const r = await agent.call('propose_commit', { message: 'm', paths: ['app/k.ts'], reason: 'r' });
    expect(r.isError).toBe(true);
    expect(r.text).toMatch(/app\/k\.ts/);
    await rm(join(tree, 'app/k.ts'));
  });

  it('the write port reads what git would store: a link as its target text, nothing through a linked directory', async () => {
    const opened = await createWorkTreeWriters().open(repo.dir, 'work');
    const w = opened.ok ? opened.value : undefined;
    if (w === undefined) throw new Error('no writer');
    const got = await w.stored(['app/to-key', 'app/dir/key.txt', 'drop/w-none.txt', 'app/none', 'drop/w-key.txt'], 20);
    if (!got.ok) throw new Error(got.error.message);
    const text = (b: Uint8Array) => Buffer.from(b).toString('utf8');
    expect(
      got.value.map((c) =>
        c.kind === 'symlink' ? `link ${text(c.target)}` : c.kind === 'file' ? `file ${text(c.bytes)}` : c.kind,
      ),
    ).toEqual(['link ../secret/key.txt', 'absent', 'file token = "none"\n', 'absent', 'too_large']);
  });

  it('the approved commit of a link stores the link, not its target', async () => {
    const r = await propose('app/to-none');
    const done = await srv.proposals!.approve(r.id!, 'op');
    expect(done.ok && done.value.status).toBe('applied');
    expect((await repo.git('ls-tree', 'work', 'app/to-none')).split(' ')[0]).toBe('120000');
  });
});
