// Issue 19 class 10: only *pending* proposals were capped. Cancelled and finished ones were kept forever, and every
// change rewrote one proposals.json holding every perimeter's records, so one perimeter's create-and-cancel loop made
// every other perimeter's proposal writes slower and slower, and at last made them fail. Now the store holds each
// perimeter to a count and a byte bound over all statuses (finished records make room, oldest first), each record is
// its own file, and the agent-supplied fields a record keeps are capped whatever tool made it.
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_PROPOSAL_BOUNDS, MAX_AGENT_REASON } from '../../src/core/index.js';
import { serveBoth, type Served } from '../support/both-upstreams.js';

// The store does not depend on the upstream; the local one is enough (the contract suite runs both state adapters).
describe('local upstream', () => {
  let s: Served;
  beforeAll(async () => {
    s = await serveBoth('local', [{ message: 'init', files: { 'docs/a.md': 'a\n' } }], { server: { proposals: {} } });
    for (const id of ['noisy', 'quiet'])
      await s.srv.perimeter({
        id,
        repo: s.repo,
        read: ['docs/**'],
        write: ['docs/**'],
        approval: { push_files: 'required' },
      });
  }, 60_000);
  afterAll(async () => s?.close());

  const svc = () => {
    const p = s.srv.proposals;
    if (p === undefined) throw new Error('no proposal service');
    return p;
  };

  const loop = async (agent: Awaited<ReturnType<Served['srv']['connect']>>, rounds: number): Promise<void> => {
    for (let i = 0; i < rounds; i++) {
      const made = await agent.call('push_files', {
        message: `loop ${i}`,
        files: [{ path: 'docs/a.md', content: `${i}\n` }],
      });
      expect(made.structured?.status, made.text).toBe('pending');
      const cancelled = await agent.call('proposal_cancel', { proposal_id: made.structured.proposal_id });
      expect(cancelled.isError, cancelled.text).toBeFalsy();
    }
  };

  it('a create-and-cancel loop leaves at most the bound stored, the newest kept', async () => {
    const noisy = await s.srv.connect('/mcp/noisy');
    const rounds = DEFAULT_PROPOSAL_BOUNDS.maxRecords + 10;
    await loop(noisy, rounds);
    const kept = await svc().list({ perimeter: 'noisy' });
    expect(kept.length).toBe(DEFAULT_PROPOSAL_BOUNDS.maxRecords);
    // The oldest finished records went first: the newest one is still there for proposal_status.
    expect(kept[0]?.change.kind === 'push_files' && kept[0].change.message).toBe(`loop ${rounds - 1}`);
    const status = await noisy.call('proposal_status', { proposal_id: kept[0]?.id });
    expect(status.structured?.status, status.text).toBe('cancelled');
  }, 120_000);

  it("one perimeter's writes never rewrite another's records: each proposal is its own file", async () => {
    const quiet = await s.srv.connect('/mcp/quiet');
    const theirs = await quiet.call('push_files', {
      message: 'quiet change',
      files: [{ path: 'docs/q.md', content: 'q\n' }],
    });
    expect(theirs.structured?.status, theirs.text).toBe('pending');
    const theirId = theirs.structured.proposal_id as string;
    const theirFile = join(s.srv.stateDir, 'proposals', `${theirId}.json`);
    const before = await readFile(theirFile, 'utf8');
    // Replace it behind the store's back: a write of another perimeter that rewrote it would put the record back.
    await writeFile(theirFile, before.replace('quiet change', 'QUIET MARK'));
    await loop(await s.srv.connect('/mcp/noisy'), 5);
    expect(await readFile(theirFile, 'utf8')).toContain('QUIET MARK');
    await writeFile(theirFile, before);
    const files = (await readdir(join(s.srv.stateDir, 'proposals'))).filter((n) => n.endsWith('.json'));
    expect(files.length).toBe(DEFAULT_PROPOSAL_BOUNDS.maxRecords + 1);
  });

  it('refuses an agent field over its cap whatever the tool, before the store sees it', async () => {
    const made = await svc().create({
      perimeter: 'quiet',
      repo: s.repo,
      branch: 'main',
      base: await s.head(),
      agent: 'x'.repeat(10_000),
      change: {
        kind: 'push_files',
        message: 'm',
        files: [{ path: 'docs/z.md', content: 'z\n', encoding: 'utf-8' }],
        deletes: [],
      },
      facts: { paths: ['docs/z.md'], protected_paths: [] },
      agentReason: 'r'.repeat(MAX_AGENT_REASON + 1),
    });
    expect(made).toMatchObject({ ok: false, code: 'invalid' });
    const key = await svc().create({
      perimeter: 'quiet',
      repo: s.repo,
      branch: 'main',
      base: await s.head(),
      agent: 'x'.repeat(10_000),
      change: {
        kind: 'push_files',
        message: 'm',
        files: [{ path: 'docs/z.md', content: 'z\n', encoding: 'utf-8' }],
        deletes: [],
      },
      facts: { paths: ['docs/z.md'], protected_paths: [] },
      idempotencyKey: 'k'.repeat(129),
    });
    expect(key).toMatchObject({ ok: false, code: 'invalid' });
    // A long client label is cut, not refused: it is a label.
    const labelled = await svc().create({
      perimeter: 'quiet',
      repo: s.repo,
      branch: 'main',
      base: await s.head(),
      agent: 'x'.repeat(10_000),
      change: {
        kind: 'push_files',
        message: 'm',
        files: [{ path: 'docs/z.md', content: 'z\n', encoding: 'utf-8' }],
        deletes: [],
      },
      facts: { paths: ['docs/z.md'], protected_paths: [] },
    });
    expect(labelled.ok && labelled.value.agent.length).toBe(512);
  });

  it('refuses a change too large to store, in words, and stores nothing', async () => {
    const before = (await svc().list({ perimeter: 'quiet' })).length;
    const made = await svc().create({
      perimeter: 'quiet',
      repo: s.repo,
      branch: 'main',
      base: await s.head(),
      agent: 'a',
      change: {
        kind: 'push_files',
        message: 'm',
        files: [
          { path: 'docs/big.md', content: 'b'.repeat(DEFAULT_PROPOSAL_BOUNDS.maxRecordBytes), encoding: 'utf-8' },
        ],
        deletes: [],
      },
      facts: { paths: ['docs/big.md'], protected_paths: [] },
    });
    expect(made).toMatchObject({ ok: false, code: 'conflict' });
    if (!made.ok) expect(made.message).toMatch(/too large to hold for approval/);
    // A workspace plan this large never reaches the store: the step caps of the proposal schema (1,000,000 bytes of
    // patch per plan) refuse it first. Either way nothing is stored.
    const half = 'p'.repeat(DEFAULT_PROPOSAL_BOUNDS.maxRecordBytes / 2);
    const plan = await svc()
      .create({
        perimeter: 'quiet',
        repo: s.repo,
        branch: 'main',
        base: await s.head(),
        agent: 'a',
        change: {
          kind: 'plan',
          steps: [
            { kind: 'patch', patch: half },
            { kind: 'patch', patch: half },
          ],
          fingerprint: 'f',
        },
        facts: { paths: [], protected_paths: [] },
        agentReason: 'why',
      })
      .catch((e: Error) => ({ ok: false as const, message: e.message }));
    expect(plan.ok).toBe(false);
    expect((await svc().list({ perimeter: 'quiet' })).length).toBe(before);
  });
});
