// Issue 23 §2: who else is here, and leases the server enforces. Agents of one perimeter are named to each other
// (`agent@perimeter`), agents of other perimeters are only counted, and nothing is ever said about a path the asker
// cannot read: another agent's write, proposal or lease on a hidden path is absent from `activity`, and a lease on a
// write-only path refuses with the generic message only. On both upstreams, real server, real MCP clients, real keys.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveBoth, UPSTREAM_KINDS, type Served } from '../support/both-upstreams.js';
import type { Agent } from '../support/server.js';

const FILES = { 'app/a.ts': 'a\n', 'app/b.ts': 'b\n', 'secret/s.txt': 's\n', 'out/o.txt': 'o\n' };

describe.each(UPSTREAM_KINDS)('%s upstream', (kind) => {
  let s: Served;
  let a: Agent; // perimeter p, key 1
  let b: Agent; // perimeter p, key 2
  let c: Agent; // perimeter all (reads and writes everything)
  let d: Agent; // perimeter allap (everything, approval mode)
  let agentA = '';
  let agentB = '';
  const keyed = async (perimeter: string): Promise<{ agent: Agent; name: string }> => {
    const k = await s.srv.api('POST', `/api/perimeters/${perimeter}/keys`);
    expect(k.status).toBe(201);
    const json = k.json as { id: string; key: string };
    return {
      agent: await s.srv.connect(`/mcp/${perimeter}`, 'legacy', { authorization: `Bearer ${json.key}` }),
      name: `key-${json.id}`,
    };
  };
  beforeAll(async () => {
    s = await serveBoth(kind, [{ message: 'init', files: FILES }], { server: { proposals: { ttlMs: 600_000 } } });
    await s.srv.perimeter({ id: 'p', repo: s.repo, read: ['app/**'], write: ['app/**', 'out/**'] });
    await s.srv.perimeter({ id: 'all', repo: s.repo, read: ['**'], write: ['**'] });
    await s.srv.perimeter({
      id: 'allap',
      repo: s.repo,
      read: ['**'],
      write: ['**'],
      approval: { push_files: 'required' },
    });
    const ka = await keyed('p');
    const kb = await keyed('p');
    a = ka.agent;
    b = kb.agent;
    agentA = ka.name;
    agentB = kb.name;
    c = (await keyed('all')).agent;
    d = (await keyed('allap')).agent;
  }, 60_000);
  afterAll(async () => {
    await s?.close();
  });

  it('lists the tools on agent surfaces only', async () => {
    const names = (await b.client.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['activity', 'lease_acquire', 'lease_release']));
  });

  it("a lease held by A refuses B's write on that path, names the path, and nothing else", async () => {
    const got = await a.call('lease_acquire', { paths: ['app/a.ts'], ttl: 600 });
    expect(got.isError, got.text).toBeUndefined();
    const leaseId = got.structured.lease_id as string;
    expect(leaseId).toMatch(/^ls_[0-9a-f]{24}$/);
    const head = await s.head();
    const refused = await b.call('push_files', {
      message: 'b',
      files: [{ path: 'app/a.ts', content: 'mine\n' }],
    });
    expect(refused.isError).toBe(true);
    expect(refused.text).toMatch(/^Refused: app\/a\.ts is leased by another agent until \d{4}-/);
    expect(await s.head()).toBe(head);
    // Elsewhere B writes freely; the holder itself writes its leased path.
    const elsewhere = await b.call('push_files', { message: 'b', files: [{ path: 'app/b.ts', content: 'b2\n' }] });
    expect(elsewhere.isError, elsewhere.text).toBeUndefined();
    const own = await a.call('push_files', { message: 'a', files: [{ path: 'app/a.ts', content: 'a2\n' }] });
    expect(own.isError, own.text).toBeUndefined();
    // Only the holder releases it; then B may write.
    const stolen = await b.call('lease_release', { lease_id: leaseId });
    expect(stolen.isError).toBe(true);
    expect(stolen.text).toBe(`Not found: lease "${leaseId}" (it ended, or it was never yours).`);
    const made = await b.call('lease_release', { lease_id: 'ls_000000000000000000000000' });
    expect(made.text).toBe(`Not found: lease "ls_000000000000000000000000" (it ended, or it was never yours).`);
    expect((await a.call('lease_release', { lease_id: leaseId })).isError).toBeUndefined();
    const after = await b.call('push_files', { message: 'b', files: [{ path: 'app/a.ts', content: 'b3\n' }] });
    expect(after.isError, after.text).toBeUndefined();
  });

  it('a lease on a path the writer cannot read refuses with the generic message only', async () => {
    const got = await c.call('lease_acquire', { paths: ['out/**'], ttl: 600 });
    expect(got.isError, got.text).toBeUndefined();
    const r = await b.call('push_files', { message: 'b', files: [{ path: 'out/new.txt', content: 'x\n' }] });
    expect(r.isError).toBe(true);
    expect(r.text).toBe(
      'Refused: another agent is active in your write area; nothing was written. Retry later, or write elsewhere.',
    );
    expect(r.text).not.toContain('out/');
    expect((await c.call('lease_release', { lease_id: got.structured.lease_id })).isError).toBeUndefined();
  });

  it('activity names same-perimeter agents, counts others, and shows only readable paths', async () => {
    await c.call('lease_acquire', { paths: ['secret/**'], ttl: 600 });
    await c.call('lease_acquire', { paths: ['app/shared/**'], ttl: 600 });
    await c.call('push_files', { message: 'c', files: [{ path: 'secret/s.txt', content: 'changed\n' }] });
    await d.call('push_files', { message: 'd', files: [{ path: 'secret/new.txt', content: 'x\n' }] });
    await d.call('push_files', { message: 'd', files: [{ path: 'app/d.ts', content: 'x\n' }] });
    const r = await b.call('activity', {});
    expect(r.isError, r.text).toBeUndefined();
    const v = r.structured as {
      agents: { agent: string }[];
      other_agents: number;
      writes: { agent: string; paths: string[] }[];
      proposals: { agent: string; paths: string[] }[];
      leases: { agent: string; paths: string[] }[];
    };
    expect(v.agents.map((x) => x.agent)).toEqual([`${agentA}@p`]);
    expect(v.other_agents).toBe(2);
    expect(v.writes.map((w) => [w.agent, w.paths])).toContainEqual([`${agentA}@p`, ['app/a.ts']]);
    expect(JSON.stringify(v)).not.toContain('secret');
    expect(JSON.stringify(v)).not.toContain(agentB);
    expect(v.proposals).toEqual([expect.objectContaining({ agent: 'another agent', paths: ['app/d.ts'] })]);
    expect(v.leases).toEqual([expect.objectContaining({ agent: 'another agent', paths: ['app/shared/**'] })]);
    // A hidden path and a missing one ask about the same nothing.
    const hidden = await b.call('activity', { path: 'secret' });
    const missing = await b.call('activity', { path: 'nothing-here' });
    expect(hidden).toEqual(missing);
    expect(hidden.structured).toMatchObject({ writes: [], proposals: [], leases: [] });
    expect(hidden.text).not.toContain('secret');
  });

  it('a proposal records the other agents on its paths, for the approver (never for the agent)', async () => {
    const d2 = await keyed('allap');
    const r = await d2.agent.call('push_files', { message: 'd2', files: [{ path: 'app/d.ts', content: 'y\n' }] });
    expect(r.isError, r.text).toBeUndefined();
    const id = r.structured.proposal_id as string;
    const got = await s.srv.api('GET', `/api/proposals/${id}`);
    const json = got.json as {
      proposal: { facts: { other_agents?: { agent: string; paths: string[] }[] } };
      flags: { label: string }[];
    };
    expect(json.proposal.facts.other_agents).toEqual([
      { agent: expect.stringMatching(/^key-[0-9a-f]+@allap$/), paths: ['app/d.ts'] },
    ]);
    expect(json.flags.map((f) => f.label)).toContainEqual(expect.stringMatching(/^other agents here: key-/));
    const mine = await d2.agent.call('proposal_status', { proposal_id: id });
    expect(JSON.stringify(mine)).not.toContain('@allap');
  });

  it("revoking the holder's key ends its leases", async () => {
    const k = await s.srv.api('POST', '/api/perimeters/p/keys', { agent: 'short-lived' });
    expect(k.status, JSON.stringify(k.json)).toBe(201);
    const json = k.json as { id: string; key: string };
    const holder = await s.srv.connect('/mcp/p', 'legacy', { authorization: `Bearer ${json.key}` });
    const got = await holder.call('lease_acquire', { paths: ['app/revoked.ts'], ttl: 600 });
    expect(got.isError, got.text).toBeUndefined();
    const refused = await b.call('push_files', { message: 'b', files: [{ path: 'app/revoked.ts', content: 'x\n' }] });
    expect(refused.text).toMatch(/is leased by another agent/);
    expect((await s.srv.api('DELETE', `/api/perimeters/p/keys/${json.id}`)).status).toBe(200);
    const lands = await b.call('push_files', { message: 'b', files: [{ path: 'app/revoked.ts', content: 'x\n' }] });
    expect(lands.isError, lands.text).toBeUndefined();
  });

  it('refuses leases outside the write scope, over the TTL bound, and past the per-agent count', async () => {
    const outside = await b.call('lease_acquire', { paths: ['secret/**'], ttl: 60 });
    expect(outside.text).toBe(
      'Refused: "secret/**" is not inside your write scope; a lease covers only paths you may write.',
    );
    const long = await b.call('lease_acquire', { paths: ['app/x.ts'], ttl: 7200 });
    expect(long.text).toBe('Invalid argument: ttl is at most 3600 seconds on this perimeter.');
    const ids: string[] = [];
    for (let i = 0; i < 16; i++) {
      const r = await b.call('lease_acquire', { paths: [`app/l${i}.ts`], ttl: 60 });
      expect(r.isError, r.text).toBeUndefined();
      ids.push(r.structured.lease_id as string);
    }
    const over = await b.call('lease_acquire', { paths: ['app/l99.ts'], ttl: 60 });
    expect(over.text).toBe('Refused: you already hold 16 leases (at most 16); release one first.');
    for (const id of ids) await b.call('lease_release', { lease_id: id });
  });
});
