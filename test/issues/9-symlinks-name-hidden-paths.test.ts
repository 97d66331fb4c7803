// Issue 9 item 8: a readable symlink's target text (`../secret/keys.txt`, `/etc/passwd`) was served, naming paths
// the perimeter cannot read. A symlink is now served only when its target, resolved inside the repository, is
// readable; otherwise it reads exactly like a path that does not exist, in get_tree, get_file and get_files.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bytesOf, UPSTREAM_KINDS, serveBoth, type Served } from '../support/both-upstreams.js';

const BAD = ['app/out', 'app/abs', 'app/up', 'app/env', 'app/dir', 'app/deep/far'];

describe.each(UPSTREAM_KINDS)('%s upstream', (kind) => {
  let s: Served;
  beforeAll(async () => {
    s = await serveBoth(
      kind,
      [
        {
          message: 'init',
          files: {
            'app/main.ts': '1\n',
            'app/lib/util.ts': '2\n',
            'app/.env': 'X=1\n',
            'docs/guide.md': '# g\n',
            'secret/keys.txt': 'k\n',
            'app/ok': { symlink: 'lib/util.ts' },
            'app/okdoc': { symlink: '../docs/guide.md' },
            'app/out': { symlink: '../secret/keys.txt' },
            'app/abs': { symlink: '/etc/passwd' },
            'app/up': { symlink: '../../../../etc/hostname' },
            'app/env': { symlink: '.env' },
            'app/dir': { symlink: '../secret' },
            'app/chain': { symlink: 'out' },
            'app/deep/far': { symlink: '../../secret/keys.txt' },
          },
        },
      ],
      { limits: true },
    );
    await s.srv.perimeter({ id: 'p', repo: s.repo, read: ['app/**', 'docs/*.md'], write: [] });
  }, 60_000);
  afterAll(async () => s?.close());

  it('serves a link whose target is readable, as its target text', async () => {
    const a = await s.srv.connect('/mcp/p');
    expect((await a.call('get_file', { path: 'app/ok' })).structured).toMatchObject({
      content: 'lib/util.ts',
      symlink: true,
    });
    expect((await a.call('get_file', { path: 'app/okdoc' })).structured).toMatchObject({
      content: '../docs/guide.md',
      symlink: true,
    });
    // A link to a readable link is judged on its own text only: `out` names a readable path.
    expect((await a.call('get_file', { path: 'app/chain' })).structured).toMatchObject({
      content: 'out',
      symlink: true,
    });
  });

  it('a link to a hidden, private, absolute or escaping target reads like a missing file', async () => {
    const a = await s.srv.connect('/mcp/p');
    const missing = bytesOf(await a.call('get_file', { path: 'app/nope' }))
      .split('app/nope')
      .join('P');
    for (const path of BAD)
      expect(
        bytesOf(await a.call('get_file', { path }))
          .split(path)
          .join('P'),
      ).toBe(missing);
    const many = await a.call('get_files', { paths: [...BAD, 'app/ok'] });
    expect(many.structured.found).toBe(1);
    const none = await a.call('get_files', { paths: ['app/nope'] });
    const one = await a.call('get_files', { paths: ['app/out'] });
    expect(bytesOf(one).split('app/out').join('P')).toBe(bytesOf(none).split('app/nope').join('P'));
  });

  it('get_tree lists only servable links, and a directory holding only a bad link reads as missing', async () => {
    const a = await s.srv.connect('/mcp/p');
    const r = await a.call('get_tree', { path: 'app', recursive: true });
    const paths = r.structured.entries.map((e: { path: string }) => e.path);
    for (const p of BAD) expect(paths).not.toContain(p);
    expect(paths).toEqual(expect.arrayContaining(['app/ok', 'app/okdoc', 'app/chain', 'app/main.ts']));
    expect(paths).not.toContain('app/deep');
    const deep = bytesOf(await a.call('get_tree', { path: 'app/deep' }))
      .split('app/deep')
      .join('D');
    expect(deep).toBe(
      bytesOf(await a.call('get_tree', { path: 'app/nodir' }))
        .split('app/nodir')
        .join('D'),
    );
    for (const text of ['secret', 'etc/passwd', 'hostname', '.env']) expect(bytesOf(r)).not.toContain(text);
    // One level: a child directory kept only by a bad link reads as missing there too; good links show.
    const flat = (await a.call('get_tree', { path: 'app' })).structured.entries.map((e: { path: string }) => e.path);
    expect(flat).not.toContain('app/deep');
    expect(flat).toEqual(expect.arrayContaining(['app/lib', 'app/ok', 'app/chain']));
    for (const p of BAD) expect(flat).not.toContain(p);
  });

  it('get_commit leaves a bad link change out (issue 19: as absent as in get_tree); a good link keeps its patch', async () => {
    const a = await s.srv.connect('/mcp/p');
    const init = (await s.git.git('rev-list', '--max-parents=0', 'main')).trim();
    const r = await a.call('get_commit', { sha: init });
    expect(r.isError, r.text).toBeUndefined();
    for (const text of ['secret', 'etc/passwd', 'hostname', '.env']) expect(bytesOf(r)).not.toContain(text);
    const byPath = new Map(r.structured.files.map((f: { path: string }) => [f.path, f]));
    expect(byPath.get('app/ok')).toMatchObject({ patch: expect.stringContaining('+lib/util.ts') });
    for (const p of BAD) expect(byPath.has(p)).toBe(false);
  });

  it('the operator surface still reads every link as it is', async () => {
    const root = await s.srv.connect('/mcp/root', 'legacy', {
      authorization: 'Bearer test-ops-token-0123456789abcdef0123',
    });
    expect((await root.call('get_file', { repo: s.repo, path: 'app/out' })).structured).toMatchObject({
      content: '../secret/keys.txt',
      symlink: true,
    });
  });
});
