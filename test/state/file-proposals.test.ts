// The file adapter of the proposal store: durable before acknowledged, atomic status transitions, idempotency keys,
// and a corrupt file that stops the start instead of forgetting decisions.
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Proposal } from '../../src/core/index.js';
import { newProposalId, proposalHash } from '../../src/registry/proposals.js';
import { openFileProposalStore } from '../../src/state/file/proposals.js';

const draft = (over: Partial<Proposal> = {}): Proposal => {
  const base = {
    perimeter: 'p',
    branch: 'main',
    base: 'a'.repeat(40),
    change: {
      kind: 'push_files' as const,
      message: 'm',
      files: [{ path: 'a.md', content: 'x', encoding: 'utf-8' as const }],
      deletes: [],
    },
  };
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
  const onDisk = async () => {
    const names = (await readdir(join(dir, 'proposals'))).sort();
    return Promise.all(
      names.map(async (n) => JSON.parse(await readFile(join(dir, 'proposals', n), 'utf8')) as Proposal),
    );
  };

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
    const moved = await store.transition(
      p.id,
      ['pending'],
      (q) => ({ ...q, status: 'cancelled', decided_by: 'agent', decided_at: q.created_at }) as Proposal,
    );
    expect(moved.ok).toBe(true);
    const again = await store.transition(
      p.id,
      ['pending'],
      (q) => ({ ...q, status: 'rejected', decided_by: 'x', decided_at: q.created_at, reason: 'r' }) as Proposal,
    );
    expect(again).toMatchObject({ ok: false, code: 'conflict' });
    expect((await onDisk())[0]?.status).toBe('cancelled');
    expect(await store.transition('pnope', ['pending'], (q) => q)).toMatchObject({ ok: false, code: 'not_found' });
  });

  it('answers the holder of an idempotency key instead of storing a second proposal', async () => {
    const store = await open();
    const a = draft({ idempotency_key: 'k' });
    const b = draft({ idempotency_key: 'k' });
    expect((await store.insert(a)).kind).toBe('created');
    const second = await store.insert(b);
    expect(second).toEqual({ kind: 'existing', proposal: a });
    expect(await onDisk()).toHaveLength(1);
    // Keys are per perimeter.
    expect((await store.insert(draft({ idempotency_key: 'k', perimeter: 'q' }))).kind).toBe('created');
  });

  it('refuses to start over a corrupt or invalid file', async () => {
    await writeFile(join(dir, 'proposals.json'), '{ not json');
    expect(await openFileProposalStore(dir)).toMatchObject({ ok: false, code: 'corrupt_state' });
    await writeFile(
      join(dir, 'proposals.json'),
      JSON.stringify({ version: 1, proposals: [{ ...draft(), status: 'applied' }] }),
    );
    expect(await openFileProposalStore(dir)).toMatchObject({ ok: false, code: 'corrupt_state' });
    await rm(join(dir, 'proposals.json'));
    const p = draft();
    await mkdir(join(dir, 'proposals'), { recursive: true });
    await writeFile(join(dir, 'proposals', `${p.id}.json`), JSON.stringify({ ...p, status: 'applied' }));
    expect(await openFileProposalStore(dir)).toMatchObject({ ok: false, code: 'corrupt_state' });
    // A record under another proposal's name is as wrong as a broken one.
    await writeFile(join(dir, 'proposals', `${p.id}.json`), JSON.stringify(draft()));
    expect(await openFileProposalStore(dir)).toMatchObject({ ok: false, code: 'corrupt_state' });
  });

  it('splits the single proposals.json of earlier versions into one file per proposal, once', async () => {
    const a = draft();
    const b = draft({ perimeter: 'q' });
    await writeFile(join(dir, 'proposals.json'), JSON.stringify({ version: 1, proposals: [a, b] }));
    const store = await open();
    expect(await store.get(a.id)).toEqual(a);
    expect((await onDisk()).map((x) => x.id).sort()).toEqual([a.id, b.id].sort());
    await expect(readFile(join(dir, 'proposals.json'))).rejects.toThrow();
    expect(await (await open()).get(b.id)).toEqual(b);
  });

  it("writes one record per change: another perimeter's history is never rewritten", async () => {
    const store = await open();
    const theirs = draft({ perimeter: 'busy' });
    await store.insert(theirs);
    const before = await readFile(join(dir, 'proposals', `${theirs.id}.json`));
    // Overwrite their file behind the store's back: a write of ours that rewrote it would restore the content.
    await writeFile(join(dir, 'proposals', `${theirs.id}.json`), 'untouched');
    const ours = draft();
    await store.insert(ours);
    await store.transition(
      ours.id,
      ['pending'],
      (q) => ({ ...q, status: 'cancelled', decided_by: 'agent', decided_at: q.created_at }) as Proposal,
    );
    expect(await readFile(join(dir, 'proposals', `${theirs.id}.json`), 'utf8')).toBe('untouched');
    expect(before.length).toBeGreaterThan(0);
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
