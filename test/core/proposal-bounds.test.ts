// The store's bounds per perimeter (issue 19), decided once for both state adapters.
import { describe, expect, it } from 'vitest';
import { admitProposal, type ProposalBounds, type StoredSize } from '../../src/core/index.js';

const B: ProposalBounds = { maxRecords: 3, maxBytes: 100, maxRecordBytes: 60, keepTerminalMs: 60_000 };
const at = (s: number) => new Date(Date.UTC(2026, 0, 1) + s * 1000).toISOString();
const rec = (id: string, status: StoredSize['status'], bytes: number, s: number): StoredSize => ({
  id,
  status,
  bytes,
  updated_at: at(s),
});
const incoming = (bytes: number, s = 30): StoredSize => rec('new', 'pending', bytes, s);

describe('admitProposal', () => {
  it('admits into room without evicting anything', () => {
    expect(admitProposal([rec('a', 'pending', 10, 0)], incoming(10), B)).toEqual({ kind: 'admit', evict: [] });
  });
  it('evicts the oldest finished records for count, never an open one', () => {
    const stored = [rec('a', 'pending', 10, 0), rec('b', 'cancelled', 10, 5), rec('c', 'applied', 10, 2)];
    expect(admitProposal(stored, incoming(10), B)).toEqual({ kind: 'admit', evict: ['c'] });
    const open = [rec('a', 'pending', 10, 0), rec('b', 'approved', 10, 1), rec('c', 'applying', 10, 2)];
    expect(admitProposal(open, incoming(10), B).kind).toBe('refuse');
  });
  it('evicts finished records for bytes, and refuses when the open ones alone leave no room (evicting nothing)', () => {
    const stored = [rec('a', 'pending', 50, 0), rec('b', 'failed', 30, 1)];
    expect(admitProposal(stored, incoming(40), B)).toEqual({ kind: 'admit', evict: ['b'] });
    const full = [rec('a', 'pending', 50, 0), rec('b', 'pending', 30, 1)];
    const r = admitProposal(full, incoming(40), B);
    expect(r.kind).toBe('refuse');
    if (r.kind === 'refuse') expect(r.message).toMatch(/already hold 80 bytes/);
  });
  it('refuses a record over the record bound whatever the room', () => {
    const r = admitProposal([], incoming(61), B);
    expect(r.kind === 'refuse' && r.message).toMatch(/too large to hold for approval \(61 bytes stored, at most 60\)/);
  });
  it('drops finished records past their keep time even with room; ties in age go by id', () => {
    const stored = [rec('old', 'expired', 1, 0), rec('young', 'rejected', 1, 20), rec('open', 'pending', 1, 0)];
    expect(admitProposal(stored, incoming(1, 61), B)).toEqual({ kind: 'admit', evict: ['old'] });
    const tie = [rec('y', 'cancelled', 1, 5), rec('x', 'cancelled', 1, 5), rec('p', 'pending', 1, 0)];
    expect(admitProposal(tie, incoming(1), B)).toEqual({ kind: 'admit', evict: ['x'] });
  });
});
