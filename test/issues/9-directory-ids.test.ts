// Issue 9 item 2: get_tree served git's real tree id for each directory. The id hashes hidden entries, so an agent
// could recompute it from what it sees, learn something hidden lives there, watch it change, and brute-force short
// hidden files offline. Directories on agent surfaces now carry no id at all.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bytesOf, UPSTREAM_KINDS, serveBoth, type Served } from '../support/both-upstreams.js';

describe.each(UPSTREAM_KINDS)('%s upstream', (kind) => {
  let s: Served;
  beforeAll(async () => {
    s = await serveBoth(
      kind,
      [
        {
          message: 'init',
          files: {
            'app/a/main.ts': 'export const x = 1;\n',
            'app/a/hidden.txt': 'pin=1234\n',
            'app/b/main.ts': 'export const x = 1;\n',
          },
        },
      ],
      { limits: true },
    );
    await s.srv.perimeter({ id: 'p', repo: s.repo, read: ['app/**/*.ts'], write: [] });
  }, 60_000);
  afterAll(async () => s?.close());

  it('lists no directory id, and the real tree ids appear nowhere', async () => {
    const a = await s.srv.connect('/mcp/p');
    const root = await a.call('get_tree', { recursive: true });
    const dirs = root.structured.entries.filter((e: { type: string }) => e.type === 'dir');
    expect(dirs.map((d: { path: string }) => d.path)).toEqual(['app', 'app/a', 'app/b']);
    for (const d of dirs) expect(d).not.toHaveProperty('sha');
    for (const dir of ['app', 'app/a', 'app/b', '']) {
      const id = (await s.git.git('rev-parse', `main:${dir}`)).trim();
      expect(bytesOf(root)).not.toContain(id);
    }
  });

  it('a directory holding a hidden file lists byte-for-byte like one that does not', async () => {
    const a = await s.srv.connect('/mcp/p');
    const withHidden = bytesOf(await a.call('get_tree', { path: 'app/a', recursive: true }))
      .split('app/a')
      .join('D');
    const without = bytesOf(await a.call('get_tree', { path: 'app/b', recursive: true }))
      .split('app/b')
      .join('D');
    expect(withHidden).toBe(without);
    const parent = await a.call('get_tree', { path: 'app' });
    const [da, db] = parent.structured.entries;
    expect({ ...da, path: 'D' }).toEqual({ ...db, path: 'D' });
  });

  it('a change to the hidden file leaves every listing unchanged', async () => {
    const a = await s.srv.connect('/mcp/p');
    const before = bytesOf(await a.call('get_tree', { recursive: true }));
    await s.git.commit({ message: 'rotate', files: { 'app/a/hidden.txt': 'pin=9999\n' } });
    const after = bytesOf(await a.call('get_tree', { recursive: true }));
    expect(after).toBe(before);
  });

  it('the operator surface keeps directory ids', async () => {
    const root = await s.srv.connect('/mcp/root', 'legacy', {
      authorization: 'Bearer test-ops-token-0123456789abcdef0123',
    });
    const r = await root.call('get_tree', { repo: s.repo, path: 'app' });
    expect(r.structured.entries.find((e: { path: string }) => e.path === 'app/a').sha).toMatch(/^[0-9a-f]{40}$/);
  });
});
