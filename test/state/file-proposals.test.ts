// The file adapter of the proposal store: durable before acknowledged, atomic status transitions, idempotency keys,
// and a corrupt file that stops the start instead of forgetting decisions.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Proposal } from '../../src/core/index.js';
import { newProposalId, proposalHash } from '../../src/registry/proposals.js';
import { openFileProposalStore } from '../../src/state/file/proposals.js';

const draft = (over: Partial<Proposal> = {}): Proposal => {
  const base = { perimeter: 'p', branch: 'main', base: 'a'.repeat(40), change: { kind: 'push_files' as const, message: 'm', files: [{ path: 'a.md', content: 'x', encoding: 'utf-8' as const }], deletes: [] } };
  return {
    id: newProposalId(),
    repo: '/r',
    agent: 'test',
    hash: proposalHash(base),
    summary: 's',
    facts: { paths: ['a.md'], protected_paths: [] },
    created_at: '2026-01-01T00:00:00.000Z',
    updated_at: '2026-01-01T00:00:00.000Z',
    expires_at: '2026-01-02T00:00:00.000Z',
    status: 'pending',
    ...base,
    ...over,
  } as Proposal;
};

describe('file proposal store', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'gb-proposals-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });
  const open = async () => {
    const s = await openFileProposalStore(dir);
    if (!s.ok) throw new Error(s.message);
    return s.value;
  };
  const onDisk = async () => JSON.parse(await readFile(join(dir, 'proposals.json'), 'utf8')).proposals as Proposal[];

  it('is on disk when insert resolves, and a reopened store has it', async () => {
    const store = await open();
    const p = draft();
    await store.insert(p);
    expect((await onDisk()).map((x) => x.id)).toEqual([p.id]);
    expect(await (await open()).get(p.id)).toEqual(p);
  });

  it('moves only from the expected status; a lost race writes nothing', async () => {
    const store = await open();
    const p = draft();
    await store.insert(p);
    const moved = await store.transition(p.id, ['pending'], (q) => ({ ...q, status: 'cancelled', decided_by: 'agent', decided_at: q.created_at }) as Proposal);
    expect(moved.ok).toBe(true);
    const again = await store.transition(p.id, ['pending'], (q) => ({ ...q, status: 'rejected', decided_by: 'x', decided_at: q.created_at, reason: 'r' }) as Proposal);
    expect(again).toMatchObject({ ok: false, code: 'conflict' });
    expect((await onDisk())[0]?.status).toBe('cancelled');
    expect(await store.transition('pnope', ['pending'], (q) => q)).toMatchObject({ ok: false, code: 'not_found' });
  });

  it('answers the holder of an idempotency key instead of storing a second proposal', async () => {
    const store = await open();
    const a = draft({ idempotency_key: 'k' });
    const b = draft({ idempotency_key: 'k' });
    expect((await store.insert(a)).created).toBe(true);
    const second = await store.insert(b);
    expect(second).toEqual({ created: false, proposal: a });
    expect(await onDisk()).toHaveLength(1);
    // Keys are per perimeter.
    expect((await store.insert(draft({ idempotency_key: 'k', perimeter: 'q' }))).created).toBe(true);
  });

  it('refuses to start over a corrupt or invalid file', async () => {
    await writeFile(join(dir, 'proposals.json'), '{ not json');
    expect(await openFileProposalStore(dir)).toMatchObject({ ok: false, code: 'corrupt_state' });
    await writeFile(join(dir, 'proposals.json'), JSON.stringify({ version: 1, proposals: [{ ...draft(), status: 'applied' }] }));
    expect(await openFileProposalStore(dir)).toMatchObject({ ok: false, code: 'corrupt_state' });
  });

  it('lists newest first, filtered by perimeter and status', async () => {
    const store = await open();
    const old = draft({ created_at: '2026-01-01T00:00:00.000Z' });
    const young = draft({ created_at: '2026-01-03T00:00:00.000Z', perimeter: 'q' });
    await store.insert(old);
    await store.insert(young);
    expect((await store.list()).map((p) => p.id)).toEqual([young.id, old.id]);
    expect((await store.list({ perimeter: 'p' })).map((p) => p.id)).toEqual([old.id]);
    expect(await store.list({ status: 'applied' })).toEqual([]);
  });
});
