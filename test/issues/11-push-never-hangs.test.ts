// Issue 11 (push hang): a push_files that took longer than the session idle limit never got its answer. The reaper
// judged idleness by the last request's arrival only, closed the session while the write was still running, and the
// finished answer had no transport to go out on: the client waited for its own timeout (60 s in the bench). Here the
// write is held just before its compare-and-swap for longer than the idle limit; the answer must still arrive.
import { afterEach, describe, expect, it } from 'vitest';
import { SessionTable } from '../../src/http/sessions.js';
import { createLocalGitUpstream } from '../../src/upstream/localgit/index.js';
import { makeRepo, type GitDir } from '../support/gitdir.js';
import { startTestServer, type TestServer } from '../support/server.js';

const IDLE_MS = 1_000;
const HOLD_MS = 2_600;
/** Far above a held write, far below the SDK's 60 s: a lost answer fails here with a clear message. */
const CALL_TIMEOUT_MS = 12_000;

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

describe('issue 11: a slow push_files is answered, not lost to the idle reaper', () => {
  let srv: TestServer | undefined;
  let g: GitDir | undefined;
  afterEach(async () => {
    await srv?.close();
    await g?.cleanup();
  });

  it('answers writes that outlast the idle limit while other sessions read', async () => {
    g = await makeRepo(
      [
        { message: 'root', files: { 'a/src/x.ts': 'x\n', 'b/src/y.ts': 'y\n' } },
        { message: 'b1', files: { 'a/src/x.ts': 'x1\n' }, branch: 'b1' },
      ],
      { bare: true },
    );
    const upstream = createLocalGitUpstream({ hooks: { beforeUpdateRef: () => sleep(HOLD_MS) } });
    srv = await startTestServer({ upstream, sessionIdleMs: IDLE_MS });
    for (const id of ['pa', 'pb']) {
      const area = id === 'pa' ? 'a' : 'b';
      await srv.perimeter({ id, repo: g.dir, read: [`${area}/**`], write: [`${area}/agents/**`], branches: ['b1'] });
    }
    const writers = await Promise.all([srv.connect('/mcp/pa/b1'), srv.connect('/mcp/pb/b1')]);
    const reader = await srv.connect('/mcp/pa/b1');
    const push = (k: number) =>
      writers[k]!.client.callTool(
        {
          name: 'push_files',
          arguments: {
            message: `write ${k}`,
            files: [{ path: `${k === 0 ? 'a' : 'b'}/agents/n${k}.txt`, content: `n${k}\n` }],
          },
        },
        { timeout: CALL_TIMEOUT_MS },
      );
    const started = Date.now();
    // Two writers on one branch: the second waits behind the first, so its call lasts two holds (> 4 idle limits).
    const writes = Promise.allSettled([push(0), push(1)]);
    // A reader keeps calling meanwhile (its own session stays fresh; the writers' sessions make no new request).
    let reads = 0;
    while (Date.now() - started < HOLD_MS) {
      const r = await reader.call('get_file', { path: 'a/src/x.ts' });
      expect(r.isError).toBeUndefined();
      reads += 1;
      await sleep(200);
    }
    const settled = await writes;
    const failures = settled.flatMap((s) => (s.status === 'rejected' ? [String(s.reason)] : []));
    expect(failures).toEqual([]);
    for (const s of settled) if (s.status === 'fulfilled') expect(s.value.isError).toBeFalsy();
    expect(reads).toBeGreaterThan(0);
    expect(Date.now() - started).toBeLessThan(CALL_TIMEOUT_MS);
    // Both commits landed, one on top of the other.
    expect((await g.git('log', '--format=%s', '-2', 'b1')).trim().split('\n').sort()).toEqual(['write 0', 'write 1']);
    // After the answers, the sessions are idle again and the reaper may take them as before.
    await sleep(IDLE_MS * 3);
    const after = await writers[0]!.client
      .callTool({ name: 'get_file', arguments: { path: 'a/src/x.ts' } }, { timeout: CALL_TIMEOUT_MS })
      .then(
        () => 'answered',
        (e: unknown) => String(e),
      );
    expect(after).not.toBe('answered');
  }, 40_000);
});

describe('issue 11: the session table never closes a session mid-answer', () => {
  // The table's own bookkeeping with a hand-moved clock; closing calls only these stubs.
  const closed: string[] = [];
  const stub = (id: string) => ({ close: async () => void closed.push(id) }) as never;
  const add = (t: SessionTable, id: string) =>
    t.add({ id, key: 'k', perimeter: 'p', owner: 'key:p:k', transport: stub(id), server: stub(id) });

  it('reaps an answering session only after its answer and a full idle period', async () => {
    let now = 0;
    const table = new SessionTable({ idleMs: 1_000, now: () => now });
    add(table, 'busy');
    add(table, 'quiet');
    const busy = table.lookup('busy', 'k', 'key:p:k')!;
    const done = table.answer(busy);
    now = 5_000;
    expect(await table.reap()).toBe(1);
    expect(table.lookup('busy', 'k', 'key:p:k')).toBeDefined();
    expect(table.lookup('quiet', 'k', 'key:p:k')).toBeUndefined();
    expect(table.activity(1_000)).toEqual({ active: 1, idle: 0 });
    now = 9_000;
    done();
    done(); // a second call (close after finish) counts once
    now = 9_500;
    expect(await table.reap()).toBe(0);
    now = 10_001;
    expect(await table.reap()).toBe(1);
    expect(table.size).toBe(0);
    await table.closeAll();
  });

  it('makes room at a key cap by closing an idle session before one that is answering', async () => {
    let now = 0;
    const table = new SessionTable({ idleMs: 60_000, limits: { perKey: 2 }, now: () => now });
    closed.length = 0;
    add(table, 'old-busy');
    now = 1;
    add(table, 'newer-idle');
    table.answer(table.lookup('old-busy', 'k', 'key:p:k')!);
    now = 2;
    table.lookup('newer-idle', 'k', 'key:p:k');
    expect(table.claim('key:p:k', 'p')).toEqual({ kind: 'room' });
    await new Promise((r) => setTimeout(r, 0));
    expect(closed).toContain('newer-idle');
    expect(closed).not.toContain('old-busy');
    await table.closeAll();
  });
});
