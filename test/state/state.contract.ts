// One contract for every state adapter: what the rest of git-blinder may rely on, whichever store is configured.
import { afterEach, describe, expect, it } from 'vitest';
import { fail, materialize, ok, proposalBytes, type Proposal, type ProposalBounds } from '../../src/core/index.js';
import type { ActivityNote, LeaseRequest, SharedState } from '../../src/state/types.js';

/** How a suite opens its adapter: `open` a fresh store; `reopen` another handle on the same store (a restart, or a second instance). */
export interface StateFactory {
  open(): Promise<SharedState>;
  reopen(): Promise<SharedState>;
  /** Whether two handles may be open at once (several instances on one store). */
  readonly shared: boolean;
}

const infra = materialize(
  { id: 'infra', repo: 'acme/platform', read: ['infra/**'], write: [], branches: ['feat'] },
  'main',
);

/** A pending proposal as the service would store it (ids are 'p' + 24 base32 characters). */
const proposal = (n: number, over: Partial<Proposal> = {}): Proposal =>
  ({
    id: `p${String.fromCharCode(97 + n).repeat(24)}`,
    perimeter: 'infra',
    repo: 'acme/platform',
    branch: 'main',
    base: 'a'.repeat(40),
    agent: 'test-agent',
    hash: `sha256:${'0'.repeat(64)}`,
    summary: `change ${n}`,
    facts: { paths: ['infra/a.tf'], protected_paths: [] },
    change: {
      kind: 'push_files',
      message: `m${n}`,
      files: [{ path: 'infra/a.tf', content: 'x', encoding: 'utf-8' }],
      deletes: [],
    },
    created_at: `2026-12-01T10:00:0${n}.000Z`,
    updated_at: `2026-12-01T10:00:0${n}.000Z`,
    expires_at: '2026-12-08T10:00:00.000Z',
    status: 'pending',
    ...over,
  }) as Proposal;

/** Waits until `cond` holds (a change made through another handle arrives asynchronously). */
async function eventually(cond: () => boolean, ms = 3000): Promise<void> {
  const until = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Registers the contract for one adapter; `factory(bounds)` opens its stores with those proposal bounds. */
export function stateContract(name: string, factory: (bounds?: ProposalBounds) => StateFactory): void {
  describe(`state contract: ${name}`, () => {
    const opened: SharedState[] = [];
    let f: StateFactory;
    const open = async (bounds?: ProposalBounds) => {
      f = factory(bounds);
      const s = await f.open();
      opened.push(s);
      return s;
    };
    const reopen = async () => {
      const s = await f.reopen();
      opened.push(s);
      return s;
    };
    afterEach(async () => {
      for (const s of opened.splice(0)) await s.close();
    });

    it('starts empty, lists sorted, bumps the revision on every change and on nothing else', async () => {
      const s = await open();
      const p = s.perimeters;
      expect(p.list()).toEqual([]);
      const r0 = p.revision();
      await p.put({ ...infra, id: 'zeta' });
      await p.put(infra);
      expect(p.list().map((x) => x.id)).toEqual(['infra', 'zeta']);
      expect(p.get('infra')).toEqual(infra);
      expect(p.revision()).toBe(r0 + 2);
      const refused = await p.modify((draft) => (draft.delete('infra'), fail('nope', 'refused')));
      expect(refused.ok).toBe(false);
      expect(p.get('infra')).toEqual(infra); // a refusal writes nothing, even what mutate did to its draft
      expect(p.revision()).toBe(r0 + 2);
      expect(await p.delete('zeta')).toBe(true);
      expect(await p.delete('zeta')).toBe(false);
      expect(p.list().map((x) => x.id)).toEqual(['infra']);
    });

    it('keeps every change for the next handle on the same store', async () => {
      const s = await open();
      await s.perimeters.put(infra);
      await s.perimeters.put({ ...infra, id: 'gone' });
      await s.perimeters.delete('gone');
      if (!f.shared) await s.close();
      const again = await reopen();
      expect(again.perimeters.list()).toEqual([infra]);
    });

    it('records where each perimeter came from (issue 25), and the next handle reads it back', async () => {
      const s = await open();
      await s.perimeters.put({ ...infra, origin: 'config' });
      await s.perimeters.put({ ...infra, id: 'made', origin: 'runtime' });
      await s.perimeters.put({ ...infra, id: 'older' }); // stored before origins were recorded
      if (!f.shared) await s.close();
      const again = await reopen();
      expect(again.perimeters.list().map((p) => [p.id, p.origin])).toEqual([
        ['infra', 'config'],
        ['made', 'runtime'],
        ['older', undefined],
      ]);
      // A change of origin alone (a runtime perimeter the config now declares) is a change.
      await again.perimeters.put({ ...infra, id: 'made', origin: 'config' });
      if (!f.shared) await again.close();
      const third = await reopen();
      await eventually(() => third.perimeters.get('made')?.origin === 'config');
    });

    it('serializes read-modify-writes: concurrent edits (from two handles where the store is shared) lose nothing', async () => {
      const a = await open();
      await a.perimeters.put({ ...infra, branches: ['main'] });
      const b = f.shared ? await reopen() : a;
      const edits = Array.from({ length: 12 }, (_, i) =>
        (i % 2 ? a : b).perimeters.modify((draft) => {
          const p = draft.get('infra');
          if (!p) return fail('missing', '');
          draft.set('infra', { ...p, branches: [...p.branches, `b${i}`] });
          return ok(i);
        }),
      );
      await Promise.all(edits);
      await eventually(
        () =>
          (b.perimeters.get('infra')?.branches.length ?? 0) === 13 &&
          (a.perimeters.get('infra')?.branches.length ?? 0) === 13,
      );
      expect(new Set(a.perimeters.get('infra')?.branches)).toEqual(
        new Set(['main', ...Array.from({ length: 12 }, (_, i) => `b${i}`)]),
      );
    });

    it('counts fixed windows per key and gives one back', async () => {
      const s = await open();
      const c = s.counters;
      expect(await c.take('k', 2, 60_000)).toBeUndefined();
      expect(await c.take('k', 2, 60_000)).toBeUndefined();
      const wait = await c.take('k', 2, 60_000);
      expect(wait).toBeGreaterThanOrEqual(1);
      expect(wait).toBeLessThanOrEqual(60);
      expect(await c.take('other', 1, 60_000)).toBeUndefined(); // keys are independent
      await c.give('k');
      expect(await c.take('k', 2, 60_000)).toBeUndefined();
      expect(await c.take('k', 2, 60_000)).toBeDefined();
      expect(await c.take('zero', 0, 60_000)).toBeGreaterThanOrEqual(1);
    });

    it('restarts a window once it has passed', async () => {
      const s = await open();
      expect(await s.counters.take('w', 1, 200)).toBeUndefined();
      expect(await s.counters.take('w', 1, 200)).toBe(1);
      await new Promise((r) => setTimeout(r, 260));
      expect(await s.counters.take('w', 1, 200)).toBeUndefined();
    });

    it('keeps web sessions: seen by every handle, gone when idle, signed out everywhere, the least recent gives way', async () => {
      const a = await open();
      const b = f.shared ? await reopen() : a;
      const limits = { idleMs: 400, maxAgeMs: 60_000, max: 2 };
      await a.webSessions.create('h1', limits);
      expect(await b.webSessions.touch('h1', limits)).toBe(true);
      expect(await b.webSessions.touch('unknown', limits)).toBe(false);
      expect(await a.webSessions.count(limits)).toBe(1);
      await b.webSessions.destroy('h1');
      expect(await a.webSessions.touch('h1', limits)).toBe(false);
      // Idle past the bound: gone, whichever handle asks.
      await a.webSessions.create('h2', limits);
      await new Promise((r) => setTimeout(r, 500));
      expect(await b.webSessions.touch('h2', limits)).toBe(false);
      expect(await a.webSessions.count(limits)).toBe(0);
      // At the cap, a new sign-in removes the least recently used session.
      await a.webSessions.create('h3', limits);
      await new Promise((r) => setTimeout(r, 20));
      await b.webSessions.create('h4', limits);
      await new Promise((r) => setTimeout(r, 20));
      expect(await a.webSessions.touch('h3', limits)).toBe(true);
      await new Promise((r) => setTimeout(r, 20));
      await b.webSessions.create('h5', limits);
      expect(await Promise.all(['h3', 'h4', 'h5'].map((h) => a.webSessions.touch(h, limits)))).toEqual([
        true,
        false,
        true,
      ]);
      expect(await b.webSessions.count(limits)).toBe(2);
    });

    it('stores proposals: newest first, filtered, one per idempotency key, seen by the next handle', async () => {
      const s = await open();
      const pr = s.proposals;
      expect(await pr.insert(proposal(1))).toEqual({ kind: 'created', proposal: proposal(1) });
      await pr.insert(proposal(2, { perimeter: 'other' }));
      await pr.insert(proposal(3, { idempotency_key: 'k1' }));
      const again = await pr.insert(proposal(4, { idempotency_key: 'k1' }));
      expect(again).toEqual({ kind: 'existing', proposal: proposal(3, { idempotency_key: 'k1' }) });
      expect((await pr.list()).map((p) => p.summary)).toEqual(['change 3', 'change 2', 'change 1']);
      expect((await pr.list({ perimeter: 'infra' })).map((p) => p.summary)).toEqual(['change 3', 'change 1']);
      expect((await pr.findByKey('infra', 'push_files', 'k1'))?.id).toBe(proposal(3).id);
      expect(await pr.findByKey('other', 'push_files', 'k1')).toBeUndefined();
      expect(await pr.get('pzzzzzzzzzzzzzzzzzzzzzzzz')).toBeUndefined();
      if (!f.shared) await s.close();
      const b = await reopen();
      expect((await b.proposals.list({ status: 'pending' })).length).toBe(3);
    });

    it('lists by repository and branch (presence reads one branch), newest first', async () => {
      const s = await open();
      const pr = s.proposals;
      const at = (n: number) => ({
        created_at: `2026-12-01T11:00:0${n}.000Z`,
        updated_at: `2026-12-01T11:00:0${n}.000Z`,
      });
      await pr.insert(proposal(11, { repo: 'acme/docs', branch: 'main', ...at(1) }));
      await pr.insert(proposal(12, { repo: 'acme/docs', branch: 'dev', ...at(2) }));
      await pr.insert(proposal(13, { repo: 'acme/docs', branch: 'main', perimeter: 'other', ...at(3) }));
      const on = async (f: { repo?: string; branch?: string }) =>
        (await pr.list({ status: 'pending', ...f })).map((p) => p.summary);
      expect(await on({ repo: 'acme/docs', branch: 'main' })).toEqual(['change 13', 'change 11']);
      expect(await on({ repo: 'acme/docs', branch: 'dev' })).toEqual(['change 12']);
      expect(await on({ repo: 'acme/docs' })).toEqual(['change 13', 'change 12', 'change 11']);
      expect(await on({ repo: 'acme/none', branch: 'main' })).toEqual([]);
      expect((await pr.list({ status: 'approved', repo: 'acme/docs' })).length).toBe(0);
      if (!f.shared) await s.close();
    });

    it('keeps a local pull request proposal with its number (issue 22), read back by the next handle', async () => {
      const s = await open();
      const pull = proposal(5, {
        branch: 'feat-aws',
        change: {
          kind: 'pull_request',
          number: 7,
          into: 'main',
          head: 'b'.repeat(40),
          title: 'AWS',
          body: '',
          draft: true,
          files: [{ path: 'infra/a.tf', content: 'x', encoding: 'utf-8' }],
          deletes: [],
        },
      });
      expect(await s.proposals.insert(pull)).toEqual({ kind: 'created', proposal: pull });
      if (!f.shared) await s.close();
      const b = await reopen();
      expect((await b.proposals.get(pull.id))?.change).toEqual(pull.change);
    });

    it('moves a proposal only from the statuses named: one of two concurrent deciders wins, the other is told', async () => {
      const a = await open();
      const b = f.shared ? await reopen() : a;
      await a.proposals.insert(proposal(1));
      const decide = (st: typeof a, by: string) =>
        st.proposals.transition(
          proposal(1).id,
          ['pending'],
          (p) => ({ ...p, status: 'rejected', decided_by: by, decided_at: p.created_at, reason: by }) as Proposal,
        );
      const [x, y] = await Promise.all([decide(a, 'alice'), decide(b, 'bob')]);
      expect([x.ok, y.ok].sort()).toEqual([false, true]);
      const loser = x.ok ? y : x;
      if (!loser.ok) expect(loser.code).toBe('conflict');
      expect((await b.proposals.get(proposal(1).id))?.status).toBe('rejected');
      const missing = await a.proposals.transition('pzzzzzzzzzzzzzzzzzzzzzzzz', ['pending'], (p) => p);
      expect(missing.ok ? 'ok' : missing.code).toBe('not_found');
    });

    describe('bounds what one perimeter can make the store keep (issue 19)', () => {
      const SMALL: ProposalBounds = {
        maxRecords: 5,
        maxBytes: 12_000,
        maxRecordBytes: 6_000,
        keepTerminalMs: 3_600_000,
      };
      const at = (s: number) => new Date(Date.UTC(2026, 11, 1, 10, 0, 0) + s * 1000).toISOString();
      const made = (n: number, perimeter = 'infra', content = 'x') =>
        proposal(0, {
          id: `p${String(n)
            .padStart(24, '0')
            .replace(/\d/g, (d) => 'abcdefghij'[Number(d)] ?? 'z')}`,
          perimeter,
          summary: `change ${n}`,
          created_at: at(n),
          updated_at: at(n),
          change: {
            kind: 'push_files',
            message: `m${n}`,
            files: [{ path: 'infra/a.tf', content, encoding: 'utf-8' }],
            deletes: [],
          },
        });
      const cancel = (s: SharedState, p: Proposal, when: number) =>
        s.proposals.transition(
          p.id,
          ['pending'],
          (q) =>
            ({
              ...q,
              status: 'cancelled',
              decided_by: 'agent',
              decided_at: at(when),
              updated_at: at(when),
            }) as Proposal,
        );
      const ids = async (s: SharedState, perimeter = 'infra') =>
        (await s.proposals.list({ perimeter })).map((p) => p.summary).sort();

      it('counts every status: finished records make room, oldest first; open ones never do; other perimeters are untouched', async () => {
        const s = await open(SMALL);
        const theirs = made(100, 'other');
        expect((await s.proposals.insert(theirs)).kind).toBe('created');
        const ps = [1, 2, 3, 4, 5].map((n) => made(n));
        for (const p of ps) expect((await s.proposals.insert(p)).kind).toBe('created');
        // Cancelled out of order: 3 is the oldest finished record, then 1, then 2.
        await cancel(s, ps[2]!, 10);
        await cancel(s, ps[0]!, 11);
        await cancel(s, ps[1]!, 12);
        expect((await s.proposals.insert(made(20))).kind).toBe('created');
        expect(await s.proposals.get(ps[2]!.id)).toBeUndefined();
        expect((await ids(s)).length).toBe(5);
        expect((await s.proposals.insert(made(21))).kind).toBe('created');
        expect((await s.proposals.insert(made(22))).kind).toBe('created');
        expect(await ids(s)).toEqual(['change 20', 'change 21', 'change 22', 'change 4', 'change 5']);
        // Five open proposals: nothing may go, so the sixth is refused and nothing changes.
        const full = await s.proposals.insert(made(23));
        expect(full.kind).toBe('refused');
        if (full.kind === 'refused') expect(full.message).toMatch(/5 proposals of this perimeter are still open/);
        expect(await ids(s)).toEqual(['change 20', 'change 21', 'change 22', 'change 4', 'change 5']);
        expect(await s.proposals.get(theirs.id)).toEqual(theirs);
        if (!f.shared) await s.close();
        const again = await reopen();
        expect(await ids(again)).toEqual(['change 20', 'change 21', 'change 22', 'change 4', 'change 5']);
      });

      it('counts bytes: a record over the record cap is refused, and a perimeter full of open bytes refuses more', async () => {
        const s = await open(SMALL);
        const huge = made(1, 'infra', 'y'.repeat(7_000));
        expect(proposalBytes(huge)).toBeGreaterThan(SMALL.maxRecordBytes);
        const refused = await s.proposals.insert(huge);
        expect(refused.kind).toBe('refused');
        if (refused.kind === 'refused') expect(refused.message).toMatch(/too large to hold for approval/);
        expect(await s.proposals.get(huge.id)).toBeUndefined();
        const big = [2, 3].map((n) => made(n, 'infra', 'z'.repeat(5_000)));
        for (const p of big) expect((await s.proposals.insert(p)).kind).toBe('created');
        const third = made(4, 'infra', 'z'.repeat(5_000));
        expect((await s.proposals.insert(third)).kind).toBe('refused');
        // Once one of them is finished it makes room for the next.
        await cancel(s, big[0]!, 5);
        expect((await s.proposals.insert(third)).kind).toBe('created');
        expect(await ids(s)).toEqual(['change 3', 'change 4']);
      });

      it('drops finished records past their keep time, and keeps younger ones', async () => {
        const s = await open(SMALL);
        const old = made(1);
        const young = made(2);
        await s.proposals.insert(old);
        await s.proposals.insert(young);
        await cancel(s, old, 3);
        await cancel(s, young, 3_000);
        // One hour after the first cancel: it goes, the second (cancelled 50 minutes later) stays.
        expect((await s.proposals.insert(made(3 + 3_600))).kind).toBe('created');
        expect(await ids(s)).toEqual(['change 2', 'change 3603']);
      });

      it('holds the count when inserts race (from two handles where the store is shared)', async () => {
        const a = await open(SMALL);
        const b = f.shared ? await reopen() : a;
        const outcomes = await Promise.all(
          [1, 2, 3, 4, 5, 6, 7, 8].map((n) => (n % 2 ? a : b).proposals.insert(made(n))),
        );
        expect(outcomes.filter((o) => o.kind === 'created').length).toBe(5);
        expect(outcomes.filter((o) => o.kind === 'refused').length).toBe(3);
        expect((await ids(a)).length).toBe(5);
      });

      it('stores no agent field over its cap, whatever the caller', async () => {
        const s = await open(SMALL);
        await expect(s.proposals.insert({ ...made(1), agent_reason: 'r'.repeat(2_001) })).rejects.toThrow();
        await expect(s.proposals.insert({ ...made(2), idempotency_key: 'k'.repeat(129) })).rejects.toThrow();
        expect(await ids(s)).toEqual([]);
      });
    });

    it('records when each agent last used its key, per perimeter, for the next handle (issue 23)', async () => {
      const s = await open();
      const before = Date.now() - 1_000;
      s.agentUse.touch('infra', 'alice');
      s.agentUse.touch('infra', 'alice');
      s.agentUse.touch('other', 'bob');
      let seen: Readonly<Record<string, string>> = {};
      const until = Date.now() + 3_000;
      while (seen['alice'] === undefined && Date.now() < until) {
        seen = await s.agentUse.lastUse('infra');
        await new Promise((r) => setTimeout(r, 20));
      }
      expect(Object.keys(seen)).toEqual(['alice']);
      expect(Date.parse(seen['alice'] ?? '')).toBeGreaterThanOrEqual(before);
      if (!f.shared) await s.close();
      const b = await reopen();
      let other: Readonly<Record<string, string>> = {};
      while (other['bob'] === undefined && Date.now() < until) {
        other = await b.agentUse.lastUse('other');
        await new Promise((r) => setTimeout(r, 20));
      }
      expect(Object.keys(other)).toEqual(['bob']);
      expect(await b.agentUse.lastUse('nobody')).toEqual({});
    });

    it('keeps one 32-byte key per name, the same for the next handle', async () => {
      const s = await open();
      const k = await s.sharedKey('cursor.key');
      expect(k.length).toBe(32);
      expect(Buffer.from(await s.sharedKey('cursor.key')).equals(Buffer.from(k))).toBe(true);
      expect(Buffer.from(await s.sharedKey('other')).equals(Buffer.from(k))).toBe(false);
      if (!f.shared) await s.close();
      const b = await reopen();
      expect(Buffer.from(await b.sharedKey('cursor.key')).equals(Buffer.from(k))).toBe(true);
    });

    it('reports itself live, lists itself among the instances, and keeps the last GitHub budget seen', async () => {
      const s = await open();
      expect(s.health()).toEqual({ kind: 'live' });
      const list = await s.instances();
      expect(list.map((i) => i.version)).toContain('contract');
      const q = { remaining: 42, limit: 5000, resetAt: '2030-01-01T00:00:00.000Z' };
      s.sawQuota(q);
      expect(s.quota()).toEqual(q);
      if (f.shared) {
        const b = await reopen();
        await eventually(() => b.quota()?.remaining === 42);
        expect(b.quota()).toEqual(q);
      }
    });

    describe('presence and leases (issue 23)', () => {
      const note = (over: Partial<ActivityNote> = {}): ActivityNote => ({
        kind: 'wrote',
        perimeter: 'p',
        agent: 'a1',
        repo: 'r',
        branch: 'main',
        paths: ['app/x.ts'],
        ...over,
      });
      const lease = (over: Partial<LeaseRequest> = {}): LeaseRequest => ({
        perimeter: 'p',
        agent: 'a1',
        repo: 'r',
        branch: 'main',
        patterns: ['app/**'],
        write: ['app/**'],
        ttlSeconds: 60,
        maxPerAgent: 2,
        ...over,
      });

      it("keeps recent notes per branch, newest first; a seen note replaces the same agent's last one", async () => {
        const s = await open();
        await s.presence.note(note({ kind: 'seen', paths: [] }));
        await s.presence.note(note());
        await s.presence.note(note({ kind: 'seen', paths: [] }));
        await s.presence.note(note({ branch: 'other' }));
        const got = await s.presence.recent('r', 'main', 60_000);
        expect(got.map((e) => e.kind)).toEqual(['seen', 'wrote']);
        expect(got[1]).toMatchObject({ perimeter: 'p', agent: 'a1', paths: ['app/x.ts'] });
        expect(Date.parse(got[0]?.at ?? '')).toBeGreaterThan(0);
        expect(await s.presence.recent('r', 'none', 60_000)).toEqual([]);
        if (f.shared) {
          const b = await reopen();
          expect((await b.presence.recent('r', 'main', 60_000)).length).toBe(2);
        }
      });

      it("bounds leases per agent, releases only its holder's, and forgets expired ones", async () => {
        const s = await open();
        const one = await s.presence.acquire(lease());
        const two = await s.presence.acquire(lease({ patterns: ['app/y.ts'] }));
        expect(one.kind).toBe('acquired');
        expect(two.kind).toBe('acquired');
        expect(await s.presence.acquire(lease())).toEqual({ kind: 'limit', held: 2 });
        expect((await s.presence.acquire(lease({ agent: 'a2' }))).kind).toBe('acquired');
        const id = one.kind === 'acquired' ? one.lease.id : '';
        expect(await s.presence.release(id, 'p', 'a2')).toBe(false);
        expect(await s.presence.release(id, 'p', 'a1')).toBe(true);
        expect(await s.presence.release(id, 'p', 'a1')).toBe(false);
        const live = await s.presence.leases('r', 'main');
        expect(live.map((l) => l.agent).sort()).toEqual(['a1', 'a2']);
        await s.presence.drop('p', 'a1');
        expect((await s.presence.leases('r', 'main')).map((l) => l.agent)).toEqual(['a2']);
        const short = await s.presence.acquire(lease({ agent: 'a3', ttlSeconds: 1 }));
        expect(short.kind).toBe('acquired');
        await new Promise((r) => setTimeout(r, 1100));
        expect((await s.presence.leases('r', 'main')).map((l) => l.agent)).toEqual(['a2']);
        if (f.shared) {
          const b = await reopen();
          expect((await b.presence.leases('r', 'main')).map((l) => l.agent)).toEqual(['a2']);
        }
      });

      it('holds the per-agent bound when acquires race', async () => {
        const s = await open();
        const b = f.shared ? await reopen() : s;
        const got = await Promise.all(
          Array.from({ length: 6 }, (_, i) => (i % 2 ? b : s).presence.acquire(lease({ agent: 'racer' }))),
        );
        expect(got.filter((g) => g.kind === 'acquired')).toHaveLength(2);
      });
    });
  });
}
