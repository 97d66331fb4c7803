// Issue 23 §2 across instances: leases and presence live in the shared store, so a lease taken through one instance
// refuses the write another instance serves, and `activity` on a third names it. Three instances of the BUILT server
// (`npm run build` first) on one real PostgreSQL.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, modernAgent, startInstances, stopInstances, type Instance } from '../support/cluster.js';
import { makeRepo, type GitDir } from '../support/gitdir.js';
import { postgresBin } from '../support/postgres.js';
import { sharedPostgres, type SharedPostgres } from '../support/shared-postgres.js';

const havePostgres = (await postgresBin()) !== undefined;

describe.skipIf(!havePostgres)('issue 23 presence and leases on PostgreSQL', { timeout: 180_000 }, () => {
  let server: SharedPostgres;
  let repo: GitDir;
  const inst: Instance[] = [];

  beforeAll(async () => {
    server = await sharedPostgres();
    repo = await makeRepo([{ message: 'init', files: { 'docs/readme.md': 'hello\n', 'ops/x.txt': 'x\n' } }], {
      bare: true,
    });
  });
  afterAll(async () => {
    await stopInstances(inst);
    await repo?.cleanup();
    await server?.destroy();
  });

  it('a lease taken on one instance binds writes served by the others; activity on a third names it', async () => {
    const store = await server.database('issue23_presence');
    const config = join(repo.dir, '..', `gb-issue23-presence-${Date.now()}.yaml`);
    await writeFile(
      config,
      [
        'perimeters:',
        '  docs:',
        `    repo: ${repo.dir}`,
        '    read: ["docs/**"]',
        '    write: ["docs/**"]',
        '  ops:',
        `    repo: ${repo.dir}`,
        '    read: ["ops/**"]',
        '    write: ["ops/**", "docs/**"]',
        '',
      ].join('\n'),
    );
    await startInstances(3, { store, config, cwd: repo.dir }, inst);
    const [i0, i1, i2] = inst as [Instance, Instance, Instance];
    const alice = (await api(i0.url, 'POST', '/perimeters/docs/keys', { agent: 'alice' })).json.key as string;
    const bob = (await api(i1.url, 'POST', '/perimeters/docs/keys', { agent: 'bob' })).json.key as string;
    const olga = (await api(i2.url, 'POST', '/perimeters/ops/keys', { agent: 'olga' })).json.key as string;
    await new Promise((r) => setTimeout(r, 1_000));

    const a = await modernAgent(i0.url, '/mcp/docs', alice);
    const b = await modernAgent(i2.url, '/mcp/docs', bob);
    const o = await modernAgent(i1.url, '/mcp/ops', olga);
    const lease = await a.call('lease_acquire', { paths: ['docs/guide/**'], ttl: 600 });
    expect(lease.isError, lease.text + (lease.thrown ?? '')).toBe(false);

    const refused = await b.call('push_files', {
      message: 'bob',
      files: [{ path: 'docs/guide/intro.md', content: 'b\n' }],
    });
    expect(refused.isError).toBe(true);
    expect(refused.text).toMatch(/^Refused: docs\/guide\/intro\.md is leased by another agent until \d{4}-/);
    // Another perimeter that may write there but not read it: the generic refusal only.
    const blind = await o.call('push_files', { message: 'olga', files: [{ path: 'docs/guide/x.md', content: 'o\n' }] });
    expect(blind.text).toBe(
      'Refused: another agent is active in your write area; nothing was written. Retry later, or write elsewhere.',
    );
    const elsewhere = await b.call('push_files', { message: 'bob', files: [{ path: 'docs/b.md', content: 'b\n' }] });
    expect(elsewhere.isError, elsewhere.text).toBe(false);

    const seen = await modernAgent(i1.url, '/mcp/docs', bob);
    const act = await seen.call('activity', {});
    expect(act.isError, act.text).toBe(false);
    expect(act.text).toContain('alice@docs holds a lease on docs/guide/** until');
    expect(act.text).not.toContain('olga');
    const opsView = await o.call('activity', {});
    expect(opsView.text).not.toContain('docs/');

    const id = (lease.structured as { lease_id: string }).lease_id;
    const released = await modernAgent(i1.url, '/mcp/docs', alice);
    expect((await released.call('lease_release', { lease_id: id })).isError).toBe(false);
    const lands = await b.call('push_files', {
      message: 'bob',
      files: [{ path: 'docs/guide/intro.md', content: 'b\n' }],
    });
    expect(lands.isError, lands.text).toBe(false);
  });
});
