// Issue 19, class 7: a proposal's preview is never judged on hidden state at propose time. Twin repositories differ
// only in what the perimeter cannot see (a dirty hidden file in the working tree, a hidden-only commit on the branch
// to merge); every propose_* answer must be the same on both. What a hidden path would make of the operation is
// decided at approval, in the operator's view: the apply refuses there, and nothing hidden is written.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLocalWorkspace } from '../../src/workspace/localfs/index.js';
import { makeRepo, type GitDir } from '../support/gitdir.js';
import { startTestServer, type Agent, type TestServer } from '../support/server.js';

interface Twin {
  repo: GitDir;
  tree: string;
  agent: Agent;
}
let srv: TestServer;
let dir: string;
const twins: Twin[] = [];

/** One twin: `hidden` adds a dirty hidden file and a hidden-only commit on `other`. */
async function twin(id: string, hidden: boolean): Promise<Twin> {
  const repo = await makeRepo([
    { message: 'init', files: { 'app/a.ts': 'a1\n', 'app/b.ts': 'b1\n', 'secret/s.txt': 's1\n' } },
  ]);
  await repo.git('branch', 'work');
  await repo.commit({ message: 'other side', branch: 'other', files: { 'app/o.ts': 'o\n' } });
  if (hidden) await repo.commit({ message: 'hidden side', branch: 'other', files: { 'secret/o.txt': 'o\n' } });
  await repo.commit({ message: 'work side', branch: 'work', files: { 'app/w.ts': 'w\n' } });
  await repo.git('checkout', '-q', 'main');
  const tree = join(dir, id);
  await repo.git('worktree', 'add', '-q', tree, 'work');
  await writeFile(join(tree, 'app/a.ts'), 'a-dirty\n');
  if (hidden) await writeFile(join(tree, 'secret/s.txt'), 'hidden local work\n');
  await srv.perimeter({ id, repo: repo.dir, read: ['app/**'], write: ['app/**'], branches: ['work', 'other'] });
  return { repo, tree, agent: await srv.connect(`/mcp/${id}/work`) };
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'gb-19prev-'));
  srv = await startTestServer({ workspace: createLocalWorkspace(), proposals: {} });
  twins.push(await twin('plain', false), await twin('hiding', true));
}, 60_000);

afterAll(async () => {
  await srv?.close();
  for (const t of twins) await t.repo.cleanup();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const answer = async (t: Twin, tool: string, args: Record<string, unknown>) => {
  const r = await t.agent.call(tool, args);
  const id = r.structured?.proposal_id as string | undefined;
  const sha = await tip(t);
  const mask = (s: string) => (id === undefined ? s : s.split(id).join('ID')).split(sha).join('TIP');
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

// Commit ids hash hidden content too (the accepted exception): each twin names its own tip, masked in the answer.
const tip = async (t: Twin) => (await t.repo.git('rev-parse', 'work')).trim();
const CALLS: [string, (t: Twin) => Promise<Record<string, unknown>>][] = [
  ['propose_reset', async (t) => ({ mode: 'hard', to: await tip(t), reason: 'r' })],
  ['propose_reset', async () => ({ mode: 'mixed', to: 'work', reason: 'r' })],
  ['propose_merge', async () => ({ from: 'other', reason: 'r' })],
  ['propose_rebase', async () => ({ onto: 'other', reason: 'r' })],
  ['propose_discard', async () => ({ paths: ['app/a.ts'], reason: 'r' })],
  [
    'propose_plan',
    async () => ({
      steps: [
        { kind: 'reset', mode: 'hard', to: 'work' },
        { kind: 'merge', from: 'other' },
      ],
      reason: 'r',
    }),
  ],
];

describe('issue 19: previews are not judged on hidden state', () => {
  for (const [tool, args] of CALLS) {
    it(`${tool} answers the same whatever is hidden`, async () => {
      const [plain, hiding] = [
        await answer(twins[0]!, tool, await args(twins[0]!)),
        await answer(twins[1]!, tool, await args(twins[1]!)),
      ];
      expect(hiding.answer).toBe(plain.answer);
      expect(plain.isError).toBe(false);
    });
  }

  it('a retry with the same idempotency key is matched on what the agent asked, never on hidden tree state', async () => {
    const t = twins[1]!;
    const args = { mode: 'hard', to: 'work', reason: 'r', idempotency_key: 'k-19' };
    const first = await answer(t, 'propose_reset', args);
    await writeFile(join(t.tree, 'secret/s.txt'), 'hidden local work, changed again\n');
    const again = await answer(t, 'propose_reset', args);
    await writeFile(join(t.tree, 'secret/s.txt'), 'hidden local work\n');
    expect(again.isError).toBe(false);
    expect(again.id).toBe(first.id);
  });

  it('the hard reset keeps hidden local work out of the agent’s reach: the approval refuses it, nothing is lost', async () => {
    const t = twins[1]!;
    const r = await answer(t, 'propose_reset', { mode: 'hard', to: 'work', reason: 'r' });
    const p = await srv.proposals!.get(r.id!);
    expect(p?.facts.outside_window).toEqual(['secret/s.txt']);
    const done = await srv.proposals!.approve(r.id!, 'op');
    expect(done.ok && done.value.status).toBe('failed');
    expect(await t.repo.git('-C', t.tree, 'show', ':secret/s.txt')).toBe('s1\n');
    const { readFile } = await import('node:fs/promises');
    expect(await readFile(join(t.tree, 'secret/s.txt'), 'utf8')).toBe('hidden local work\n');
  });

  it('the merge that would bring a hidden change is refused at approval in the hiding twin, applied in the plain one', async () => {
    const [plain, hiding] = [
      await answer(twins[0]!, 'propose_merge', { from: 'other', reason: 'r' }),
      await answer(twins[1]!, 'propose_merge', { from: 'other', reason: 'r' }),
    ];
    const a = await srv.proposals!.approve(plain.id!, 'op');
    const b = await srv.proposals!.approve(hiding.id!, 'op');
    expect(a.ok && a.value.status).toBe('applied');
    expect(b.ok && b.value.status).toBe('failed');
  });
});
