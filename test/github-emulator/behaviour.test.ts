// Cross-cutting GitHub behaviour: auth, pagination and Link, ETag/304, rate-limit headers, errors, media types.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeRepo, type GitDir } from '../support/gitdir.js';
import { startFixture, TOKEN, type Fixture, type Obj } from './helpers.js';

let fx: Fixture;
let empty: GitDir;
beforeAll(async () => {
  fx = await startFixture(undefined, { treeEntryLimit: 5 });
  empty = await makeRepo([], { bare: true });
  fx.em.addRepo('octo/empty', empty.dir);
});
afterAll(async () => {
  await fx.close();
  await empty.cleanup();
});

const rels = (link: string | null): string[] => [...(link ?? '').matchAll(/rel="(\w+)"/g)].map((m) => m[1] ?? '');

describe('authentication', () => {
  it('accepts `token X` and `Bearer X`', async () => {
    expect((await fx.get('/repos/octo/demo')).status).toBe(200);
    const bearer = await fetch(`${fx.em.url}/repos/octo/demo`, {
      headers: { authorization: `Bearer ${TOKEN}`, 'user-agent': 't' },
    });
    expect(bearer.status).toBe(200);
  });

  it('a wrong token is 401 Bad credentials; no token is 401 Requires authentication', async () => {
    const bad = await fx.get('/repos/octo/demo', { token: 'nope' });
    expect(bad.status).toBe(401);
    expect(await bad.json()).toEqual({
      message: 'Bad credentials',
      documentation_url: 'https://docs.github.com/rest',
      status: '401',
    });
    expect(bad.headers.get('x-ratelimit-limit')).toBe('60');
    const none = await fx.get('/user/repos', { token: null });
    expect(none.status).toBe(401);
    expect(((await none.json()) as Obj).message).toBe('Requires authentication');
  });

  it('a request without User-Agent is refused like GitHub does', async () => {
    const res = await fetch(`${fx.em.url}/repos/octo/demo`, {
      headers: { authorization: `token ${TOKEN}`, 'user-agent': '' },
    });
    expect(res.status).toBe(403);
  });
});

describe('pagination', () => {
  it('per_page=2 over six commits: absolute Links in GitHub’s order, other parameters carried', async () => {
    const first = await fx.get('/repos/octo/demo/commits?sha=main&per_page=2');
    expect(rels(first.headers.get('link'))).toEqual(['next', 'last']);
    expect(first.headers.get('link')).toBe(
      `<${fx.em.url}/repos/octo/demo/commits?sha=main&per_page=2&page=2>; rel="next", <${fx.em.url}/repos/octo/demo/commits?sha=main&per_page=2&page=3>; rel="last"`,
    );
    const middle = await fx.get('/repos/octo/demo/commits?sha=main&per_page=2&page=2');
    expect(rels(middle.headers.get('link'))).toEqual(['prev', 'next', 'last', 'first']);
    const last = await fx.get('/repos/octo/demo/commits?sha=main&per_page=2&page=3');
    expect(rels(last.headers.get('link'))).toEqual(['prev', 'first']);
    expect(((await last.json()) as Obj[]).length).toBe(2);
  });

  it('a single page has no Link header; per_page above 100 is capped silently', async () => {
    const res = await fx.get('/repos/octo/demo/commits?per_page=1000');
    expect(res.status).toBe(200);
    expect(res.headers.get('link')).toBeNull();
    expect(((await res.json()) as Obj[]).length).toBe(6);
  });

  it('default per_page is 30 (branches list, one page)', async () => {
    const res = await fx.get('/repos/octo/demo/branches?per_page=1');
    expect(rels(res.headers.get('link'))).toEqual(['next', 'last']);
    expect(((await res.json()) as Obj[]).map((b) => b.name)).toEqual(['feature/x']);
  });
});

describe('conditional requests and rate-limit headers', () => {
  it('ETag + If-None-Match gives 304 that does not count against the budget', async () => {
    const a = await fx.get('/repos/octo/demo/branches');
    const etag = a.headers.get('etag');
    expect(etag).toMatch(/^W\/".+"$/);
    const used = Number(a.headers.get('x-ratelimit-used'));
    const b = await fx.get('/repos/octo/demo/branches', { headers: { 'if-none-match': etag ?? '' } });
    expect(b.status).toBe(304);
    expect(await b.text()).toBe('');
    expect(Number(b.headers.get('x-ratelimit-used'))).toBe(used);
    const c = await fx.get('/repos/octo/demo/branches');
    expect(Number(c.headers.get('x-ratelimit-used'))).toBe(used + 1);
    expect(Number(c.headers.get('x-ratelimit-remaining'))).toBe(5000 - used - 1);
    expect(Number(c.headers.get('x-ratelimit-reset'))).toBeGreaterThan(Date.now() / 1000);
    expect(c.headers.get('x-ratelimit-resource')).toBe('core');
  });

  it('GET /rate_limit reports the same budget and is free', async () => {
    const a = (await (await fx.get('/rate_limit')).json()) as Obj;
    const b = (await (await fx.get('/rate_limit')).json()) as Obj;
    expect(a.resources.core).toEqual(b.resources.core);
    expect(a.rate).toEqual(a.resources.core);
  });

  it('the natural primary limit: exhausting the budget gives 403 with remaining 0', async () => {
    const small = await startFixture([{ message: 'one', files: { a: 'a' } }], { rateLimit: { limit: 2 } });
    try {
      expect((await small.get('/repos/octo/demo')).status).toBe(200);
      expect((await small.get('/repos/octo/demo')).status).toBe(200);
      const res = await small.get('/repos/octo/demo');
      expect(res.status).toBe(403);
      expect(res.headers.get('x-ratelimit-remaining')).toBe('0');
      expect(((await res.json()) as Obj).message).toMatch(/^API rate limit exceeded/);
    } finally {
      await small.close();
    }
  });
});

describe('errors and routing', () => {
  it('a trailing slash is a 404; owner and repo names are case-insensitive; .git is tolerated', async () => {
    expect((await fx.get('/repos/octo/demo/')).status).toBe(404);
    expect((await fx.get('/repos/OCTO/Demo')).status).toBe(200);
    expect((await fx.get('/repos/octo/demo.git/branches')).status).toBe(200);
  });

  it('malformed JSON is 400 Problems parsing JSON; a non-object is 400; a missing field is 422', async () => {
    expect(await fx.call('POST', '/repos/octo/demo/git/blobs', '{nope')).toMatchObject({
      status: 400,
      body: { message: 'Problems parsing JSON' },
    });
    expect(await fx.call('POST', '/repos/octo/demo/git/blobs', '[1]')).toMatchObject({
      status: 400,
      body: { message: 'Body should be a JSON object' },
    });
    expect(await fx.call('PATCH', '/repos/octo/demo/git/refs/heads/main', {})).toMatchObject({
      status: 422,
      body: { message: 'Invalid request.\n\n"sha" wasn\'t supplied.' },
    });
  });

  it('empty repository: 409 on Git Data and commits, 404 on contents, 200 size 0 on the repo, [] branches', async () => {
    for (const p of [
      '/repos/octo/empty/git/ref/heads/main',
      '/repos/octo/empty/git/trees/main',
      '/repos/octo/empty/commits',
      '/repos/octo/empty/commits/main',
    ]) {
      const res = await fx.call('GET', p);
      expect([p, res.status, (res.body as Obj).message]).toEqual([p, 409, 'Git Repository is empty.']);
    }
    expect(await fx.call('GET', '/repos/octo/empty/contents/README.md')).toMatchObject({
      status: 404,
      body: { message: 'This repository is empty.' },
    });
    expect(await fx.call('GET', '/repos/octo/empty')).toMatchObject({
      status: 200,
      body: { size: 0, default_branch: 'main' },
    });
    expect(await fx.call('GET', '/repos/octo/empty/branches')).toMatchObject({ status: 200, body: [] });
  });

  it('git/ref: 404 for a SHA or a refs/ prefix; tags resolve', async () => {
    const sha = await fx.repo.head('main');
    expect((await fx.get(`/repos/octo/demo/git/ref/${sha}`)).status).toBe(404);
    expect((await fx.get('/repos/octo/demo/git/ref/refs/heads/main')).status).toBe(404);
    await fx.repo.git('tag', 'v1', sha);
    expect(await fx.call('GET', '/repos/octo/demo/git/ref/tags/v1')).toMatchObject({
      status: 200,
      body: { ref: 'refs/tags/v1', object: { sha, type: 'commit' } },
    });
  });

  it('get commit of an unknown ref is 422 No commit found for SHA; compare of unrelated histories is 404', async () => {
    expect(await fx.call('GET', '/repos/octo/demo/commits/nope')).toMatchObject({
      status: 422,
      body: { message: 'No commit found for SHA: nope' },
    });
    const orphan = (
      await fx.repo.git('commit-tree', '4b825dc642cb6eb9a060e54bf8d69288fbee4904', '-m', 'orphan')
    ).trim(); // empty tree
    await fx.repo.git('update-ref', 'refs/heads/orphan', orphan);
    expect(await fx.call('GET', '/repos/octo/demo/compare/main...orphan')).toMatchObject({
      status: 404,
      body: { message: 'No common ancestor between main and orphan.' },
    });
    await fx.repo.git('update-ref', '-d', 'refs/heads/orphan');
  });

  it('contents of an unknown ref is 404 No commit found for the ref', async () => {
    expect(await fx.call('GET', '/repos/octo/demo/contents/README.md?ref=nope')).toMatchObject({
      status: 404,
      body: { message: 'No commit found for the ref nope' },
    });
  });
});

describe('trees and contents details', () => {
  it('any value of `recursive` recurses; over the entry cap the listing is cut and truncated:true', async () => {
    const flat = (await (await fx.get('/repos/octo/demo/git/trees/main')).json()) as Obj;
    expect(flat.truncated).toBe(false);
    expect(flat.tree.some((e: Obj) => e.path.includes('/'))).toBe(false);
    const rec = (await (await fx.get('/repos/octo/demo/git/trees/main?recursive=false')).json()) as Obj;
    expect(rec.truncated).toBe(true);
    expect(rec.tree).toHaveLength(5);
    const dir = rec.tree.find((e: Obj) => e.type === 'tree');
    expect(dir).toMatchObject({ mode: '040000' });
    expect(dir).not.toHaveProperty('size');
  });

  it('tree_sha may be a commit SHA', async () => {
    const sha = await fx.repo.head('main');
    const tree = (await (await fx.get(`/repos/octo/demo/git/trees/${sha}`)).json()) as Obj;
    expect(tree.sha).toBe((await fx.repo.git('rev-parse', `${sha}^{tree}`)).trim());
  });

  it('file content is base64 wrapped at 60 columns with a trailing newline; urls carry ?ref=', async () => {
    const f = (await (await fx.get('/repos/octo/demo/contents/src/lib/util.ts')).json()) as Obj;
    const lines = (f.content as string).split('\n');
    expect(lines.at(-1)).toBe('');
    expect(lines.slice(0, -2).every((l) => l.length === 60)).toBe(true);
    expect(f.url).toBe(`${fx.em.url}/repos/octo/demo/contents/src/lib/util.ts?ref=main`);
    expect(f._links.self).toBe(f.url);
    const dl = await fetch(f.download_url as string);
    expect(await dl.text()).toBe('export function util() {\n  return 2;\n}\n');
  });

  it('files over 1 MB: content "" and encoding "none"; raw media type gives the bytes', async () => {
    const big = (await (await fx.get('/repos/octo/demo/contents/big.txt')).json()) as Obj;
    expect(big).toMatchObject({ encoding: 'none', content: '', size: 1_100_000 });
    const raw = await fx.get('/repos/octo/demo/contents/big.txt', {
      headers: { accept: 'application/vnd.github.v3.raw' },
    });
    expect(raw.headers.get('content-type')).toBe('application/vnd.github.v3.raw; charset=utf-8');
    expect((await raw.text()).length).toBe(1_100_000);
  });

  it('largeFileContents: "forbidden" gives the legacy 403 too_large', async () => {
    const legacy = await startFixture([{ message: 'big', files: { 'big.txt': 'z'.repeat(1_100_000) } }], {
      largeFileContents: 'forbidden',
    });
    try {
      expect(await legacy.call('GET', '/repos/octo/demo/contents/big.txt')).toMatchObject({
        status: 403,
        body: { errors: [{ code: 'too_large' }] },
      });
    } finally {
      await legacy.close();
    }
  });

  it('symlinks: to a file → the file’s content under the link’s path; dangling → type symlink with target', async () => {
    const link = (await (await fx.get('/repos/octo/demo/contents/link-to-readme')).json()) as Obj;
    expect(link).toMatchObject({ type: 'file', path: 'link-to-readme', size: 7 });
    expect(Buffer.from(link.content, 'base64').toString()).toBe('# demo\n');
    const dangling = (await (await fx.get('/repos/octo/demo/contents/dangling')).json()) as Obj;
    expect(dangling).toMatchObject({ type: 'symlink', target: 'nowhere/at/all' });
    const root = (await (await fx.get('/repos/octo/demo/contents')).json()) as Obj[];
    expect(root.find((e) => e.name === 'dangling')?.type).toBe('symlink');
    expect(root.find((e) => e.name === 'docs')).toMatchObject({ type: 'dir', download_url: null, size: 0 });
  });

  it('paths with spaces, # and ? round-trip whether encoded per segment or with %2F', async () => {
    const a = await fx.get(`/repos/octo/demo/contents/${encodeURIComponent('dir with space/a b#?.txt')}`);
    const b = await fx.get('/repos/octo/demo/contents/dir%20with%20space/a%20b%23%3F.txt');
    expect(a.status).toBe(200);
    expect(await a.json()).toEqual(await b.json());
  });

  it('blobs: base64 by default, raw bytes on request', async () => {
    const sha = (await fx.repo.git('rev-parse', 'main:img/logo.bin')).trim();
    const blob = (await (await fx.get(`/repos/octo/demo/git/blobs/${sha}`)).json()) as Obj;
    expect(Buffer.from(blob.content, 'base64')).toEqual(Buffer.from([0, 1, 2, 3, 255, 254, 0, 10]));
    const raw = await fx.get(`/repos/octo/demo/git/blobs/${sha}`, {
      headers: { accept: 'application/vnd.github.raw' },
    });
    expect(Buffer.from(await raw.arrayBuffer())).toEqual(Buffer.from([0, 1, 2, 3, 255, 254, 0, 10]));
  });

  it('get-commit files page at per_page with Link headers; other media types answer text', async () => {
    const sha = (await fx.repo.git('rev-list', '--max-parents=0', 'main')).trim();
    const page1 = await fx.get(`/repos/octo/demo/commits/${sha}?per_page=3`);
    const body = (await page1.json()) as Obj;
    expect(body.files).toHaveLength(3);
    expect(rels(page1.headers.get('link'))).toEqual(['next', 'last']);
    const shaOnly = await fx.get(`/repos/octo/demo/commits/main`, {
      headers: { accept: 'application/vnd.github.sha' },
    });
    expect(await shaOnly.text()).toBe(await fx.repo.head('main'));
  });
});
