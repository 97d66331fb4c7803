// Issue 10: operator changes were read-then-write with an await in between (`branch add` waits on git), so changes
// fired at the same moment through /api all answered 2xx and only the last writer's snapshot survived. Every kind of
// change is fired at once through the real /api, on both upstreams, then the store, a restarted store and the API
// must all show every one of them.
import { afterAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/state/file/index.js';
import { createGitHubUpstream, type GitHubUpstream } from '../../src/upstream/github/index.js';
import { makeRepo, type GitDir } from '../support/gitdir.js';
import { startGitHubEmulator, type Emulator } from '../support/github-emulator/index.js';
import { startTestServer, type TestServer } from '../support/server.js';

const TOKEN = 'ghp_issue10ConcurrencyToken0123456789abcde';
const BRANCHES = ['feat/a', 'feat/b', 'feat/c', 'feat/d'];
const cleanups: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c().catch(() => undefined);
});

async function fixtureRepo(bare: boolean): Promise<GitDir> {
  const repo = await makeRepo(
    [
      { message: 'init', files: { 'docs/a.md': 'a\n' } },
      ...[...BRANCHES, 'old/x', 'old/y'].map((b) => ({
        message: b,
        files: { [`docs/${b.replace('/', '-')}.md`]: `${b}\n` },
        branch: b,
      })),
    ],
    { bare },
  );
  cleanups.push(() => repo.cleanup());
  return repo;
}

async function onLocal(): Promise<{ srv: TestServer; repo: string }> {
  const repo = await fixtureRepo(false);
  const srv = await startTestServer({ openPerimeters: false });
  cleanups.push(() => srv.close());
  return { srv, repo: repo.dir };
}

async function onGitHub(): Promise<{ srv: TestServer; repo: string }> {
  const repo = await fixtureRepo(true);
  const emulator: Emulator = await startGitHubEmulator({ token: TOKEN, repos: { 'acme/conc': repo.dir } });
  const github: GitHubUpstream = createGitHubUpstream({
    token: TOKEN,
    baseUrl: emulator.url,
    writeSpacingMs: 0,
    retryDelayMs: 5,
  });
  const srv = await startTestServer({ openPerimeters: false, upstream: github, upstreamFor: () => github });
  cleanups.push(
    () => emulator.close(),
    () => github.close(),
    () => srv.close(),
  );
  return { srv, repo: 'acme/conc' };
}

describe.each([
  ['local git', onLocal],
  ['GitHub emulator', onGitHub],
])('concurrent /api changes on %s', (_name, start) => {
  it('lands every change fired at once: keys issued and revoked, branches added and removed, perimeters created and deleted', async () => {
    const { srv, repo } = await start();
    await srv.perimeter({ id: 'docs', repo, read: ['docs/**'], write: [], branches: ['old/x', 'old/y'] });
    for (const id of ['gone-1', 'gone-2', 'gone-3']) await srv.perimeter({ id, repo, read: ['docs/**'], write: [] });
    const oldKeys: string[] = [];
    for (let i = 0; i < 3; i++) oldKeys.push((await srv.api('POST', '/api/perimeters/docs/keys')).json.id);

    const fired = [
      ...Array.from({ length: 5 }, () => srv.api('POST', '/api/perimeters/docs/keys')),
      ...oldKeys.map((k) => srv.api('DELETE', `/api/perimeters/docs/keys/${k}`)),
      ...BRANCHES.map((name) => srv.api('POST', '/api/perimeters/docs/branches', { name })),
      srv.api('DELETE', '/api/perimeters/docs/branches/old/x'),
      srv.api('DELETE', '/api/perimeters/docs/branches/old/y'),
      ...['new-1', 'new-2', 'new-3'].map((id) =>
        srv.api('POST', '/api/perimeters', { id, repo, read: ['docs/**'], write: [] }),
      ),
      ...['gone-1', 'gone-2', 'gone-3'].map((id) => srv.api('DELETE', `/api/perimeters/${id}`)),
    ];
    const answers = await Promise.all(fired);
    expect(answers.map((a) => a.status).filter((s) => s >= 300)).toEqual([]);
    const issued: string[] = answers.slice(0, 5).map((a) => a.json.id);

    const check = (
      ps: readonly { id: string; branches: readonly string[]; keys?: readonly { id: string }[] | undefined }[],
    ) => {
      expect(ps.map((p) => p.id).sort()).toEqual(['docs', 'new-1', 'new-2', 'new-3']);
      const docs = ps.find((p) => p.id === 'docs');
      expect([...(docs?.branches ?? [])].sort()).toEqual(['main', ...BRANCHES].sort());
      expect((docs?.keys ?? []).map((k) => k.id).sort()).toEqual([...issued].sort());
    };
    check(srv.store.list());
    check((await srv.api('GET', '/api/perimeters')).json.perimeters);
    const reopened = await openStore(srv.stateDir);
    if (!reopened.ok) throw new Error(reopened.message);
    check(reopened.value.list());
  });

  it('re-checks under the lock: a branch added while its perimeter is deleted is not resurrected', async () => {
    const { srv, repo } = await start();
    await srv.perimeter({ id: 'race', repo, read: ['docs/**'], write: [] });
    const [added, deleted] = await Promise.all([
      srv.api('POST', '/api/perimeters/race/branches', { name: 'feat/a' }),
      srv.api('DELETE', '/api/perimeters/race'),
    ]);
    expect(deleted.status).toBe(200);
    // The branch check awaited the upstream; under the lock the perimeter is gone, so the add must fail, not re-create it.
    expect(added.status).toBe(404);
    expect(srv.store.get('race')).toBeUndefined();
    expect((await srv.api('GET', '/api/perimeters/race')).status).toBe(404);
  });
});
