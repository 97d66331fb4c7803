// Issue 19, class 8: conflict_read served a stage whose blob git took from another path by pairing a rename. Here
// ours moved a hidden file to a readable path and theirs changed the hidden file: git records the conflict at the
// readable path with base and theirs read from the hidden one. Content attributed by pairing is judged by the path
// it came from, so those stages (and the working file git merged from them) are not served.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLocalWorkspace } from '../../src/workspace/localfs/index.js';
import { makeRepo, type GitDir } from '../support/gitdir.js';
import { startTestServer, type Agent, type TestServer } from '../support/server.js';

const BODY = Array.from({ length: 30 }, (_, i) => `line ${i} of a file long enough for rename detection`);
const text = (lines: string[]) => lines.join('\n') + '\n';
const withLine = (i: number, s: string) => text(BODY.map((l, j) => (j === i ? s : l)));

let repo: GitDir;
let srv: TestServer;
let agent: Agent;

beforeAll(async () => {
  repo = await makeRepo([{ message: 'init', files: { 'secret/s.txt': text(BODY), 'app/c.txt': 'base\n' } }]);
  await repo.git('branch', 'other');
  await repo.commit({
    message: 'theirs',
    branch: 'other',
    files: { 'secret/s.txt': withLine(5, 'CANARY_THEIRS_SECRET'), 'app/c.txt': 'theirs\n' },
  });
  await repo.git('checkout', '-q', 'main');
  await repo.git('mv', 'secret/s.txt', 'app/s.txt');
  await repo.commit({ message: 'ours', files: { 'app/s.txt': withLine(5, 'ours'), 'app/c.txt': 'ours\n' } });
  await repo.git('merge', 'other').catch(() => undefined);
  srv = await startTestServer({ workspace: createLocalWorkspace() });
  await srv.perimeter({ id: 'app', repo: repo.dir, read: ['app/**'], write: [], branches: ['main', 'other'] });
  agent = await srv.connect('/mcp/app');
}, 60_000);

afterAll(async () => {
  await srv?.close();
  await repo?.cleanup();
});

describe('conflict_read: stages judged by the path git took them from', () => {
  it('git did pair the rename (the scenario is real)', async () => {
    const stages = await repo.git('ls-files', '-u', '--', 'app/s.txt');
    expect(stages.split('\n').filter(Boolean)).toHaveLength(3);
  });

  it('base and theirs, read from the hidden file, are absent; ours (from the path itself) is served', async () => {
    const r = await agent.call('conflict_read', { path: 'app/s.txt' });
    expect(r.isError).toBeUndefined();
    expect(JSON.stringify(r)).not.toContain('CANARY_THEIRS_SECRET');
    expect(r.structured.base).toEqual({ present: false });
    expect(r.structured.theirs).toEqual({ present: false });
    expect(r.structured.ours.content).toBe(withLine(5, 'ours'));
  });

  it('a conflict on a file both sides held at the same path still shows every stage', async () => {
    const r = await agent.call('conflict_read', { path: 'app/c.txt' });
    expect([r.structured.base.content, r.structured.ours.content, r.structured.theirs.content]).toEqual([
      'base\n',
      'ours\n',
      'theirs\n',
    ]);
    expect(r.structured.working.present).toBe(true);
  });
});
