// Every route's answers (success and documented errors) validated against GitHub's OpenAPI description.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeRepo, type GitDir } from '../support/gitdir.js';
import { startFixture, type Fixture, type Obj } from './helpers.js';
import { documentedStatuses, validate, validateComponent } from './openapi.js';

let fx: Fixture;
let empty: GitDir;
let main = '';
let tree = '';
let readmeBlob = '';

beforeAll(async () => {
  fx = await startFixture();
  empty = await makeRepo([], { bare: true });
  fx.em.addRepo('octo/empty', empty.dir);
  main = await fx.repo.head('main');
  tree = (await fx.repo.git('rev-parse', `${main}^{tree}`)).trim();
  readmeBlob = (await fx.repo.git('rev-parse', `${main}:README.md`)).trim();
});
afterAll(async () => {
  await fx.close();
  await empty.cleanup();
});

interface Case {
  name: string;
  method: string;
  template: string;
  path: () => string;
  body?: () => unknown;
  status: number;
}

const R = '/repos/{owner}/{repo}';
const cases: Case[] = [
  { name: 'list user repos', method: 'GET', template: '/user/repos', path: () => '/user/repos', status: 200 },
  {
    name: 'user repos: type with visibility',
    method: 'GET',
    template: '/user/repos',
    path: () => '/user/repos?type=all&visibility=all',
    status: 422,
  },
  { name: 'get repo', method: 'GET', template: R, path: () => '/repos/octo/demo', status: 200 },
  { name: 'get empty repo', method: 'GET', template: R, path: () => '/repos/octo/empty', status: 200 },
  { name: 'get missing repo', method: 'GET', template: R, path: () => '/repos/octo/nope', status: 404 },
  {
    name: 'list branches',
    method: 'GET',
    template: `${R}/branches`,
    path: () => '/repos/octo/demo/branches',
    status: 200,
  },
  {
    name: 'list branches of missing repo',
    method: 'GET',
    template: `${R}/branches`,
    path: () => '/repos/octo/nope/branches',
    status: 404,
  },
  {
    name: 'get branch',
    method: 'GET',
    template: `${R}/branches/{branch}`,
    path: () => '/repos/octo/demo/branches/feature%2Fx',
    status: 200,
  },
  {
    name: 'get missing branch',
    method: 'GET',
    template: `${R}/branches/{branch}`,
    path: () => '/repos/octo/demo/branches/nope',
    status: 404,
  },
  {
    name: 'get ref',
    method: 'GET',
    template: `${R}/git/ref/{ref}`,
    path: () => '/repos/octo/demo/git/ref/heads%2Fmain',
    status: 200,
  },
  {
    name: 'get missing ref',
    method: 'GET',
    template: `${R}/git/ref/{ref}`,
    path: () => '/repos/octo/demo/git/ref/heads/nope',
    status: 404,
  },
  {
    name: 'get ref on empty repo',
    method: 'GET',
    template: `${R}/git/ref/{ref}`,
    path: () => '/repos/octo/empty/git/ref/heads/main',
    status: 409,
  },
  {
    name: 'matching refs',
    method: 'GET',
    template: `${R}/git/matching-refs/{ref}`,
    path: () => '/repos/octo/demo/git/matching-refs/heads/feat',
    status: 200,
  },
  {
    name: 'get tree recursive',
    method: 'GET',
    template: `${R}/git/trees/{tree_sha}`,
    path: () => '/repos/octo/demo/git/trees/main?recursive=1',
    status: 200,
  },
  {
    name: 'get tree by sha',
    method: 'GET',
    template: `${R}/git/trees/{tree_sha}`,
    path: () => `/repos/octo/demo/git/trees/${tree}`,
    status: 200,
  },
  {
    name: 'get missing tree',
    method: 'GET',
    template: `${R}/git/trees/{tree_sha}`,
    path: () => '/repos/octo/demo/git/trees/nope',
    status: 404,
  },
  {
    name: 'get tree on empty repo',
    method: 'GET',
    template: `${R}/git/trees/{tree_sha}`,
    path: () => '/repos/octo/empty/git/trees/main',
    status: 409,
  },
  {
    name: 'contents: file',
    method: 'GET',
    template: `${R}/contents/{path}`,
    path: () => '/repos/octo/demo/contents/src%2Fapp.ts',
    status: 200,
  },
  {
    name: 'contents: big file',
    method: 'GET',
    template: `${R}/contents/{path}`,
    path: () => '/repos/octo/demo/contents/big.txt',
    status: 200,
  },
  {
    name: 'contents: root',
    method: 'GET',
    template: `${R}/contents/{path}`,
    path: () => '/repos/octo/demo/contents',
    status: 200,
  },
  {
    name: 'contents: dir',
    method: 'GET',
    template: `${R}/contents/{path}`,
    path: () => '/repos/octo/demo/contents/src?ref=feature%2Fx',
    status: 200,
  },
  {
    name: 'contents: symlink to file',
    method: 'GET',
    template: `${R}/contents/{path}`,
    path: () => '/repos/octo/demo/contents/link-to-readme',
    status: 200,
  },
  {
    name: 'contents: dangling symlink',
    method: 'GET',
    template: `${R}/contents/{path}`,
    path: () => '/repos/octo/demo/contents/dangling',
    status: 200,
  },
  {
    name: 'contents: missing',
    method: 'GET',
    template: `${R}/contents/{path}`,
    path: () => '/repos/octo/demo/contents/nope.txt',
    status: 404,
  },
  {
    name: 'contents: empty repo',
    method: 'GET',
    template: `${R}/contents/{path}`,
    path: () => '/repos/octo/empty/contents/README.md',
    status: 404,
  },
  {
    name: 'get blob',
    method: 'GET',
    template: `${R}/git/blobs/{file_sha}`,
    path: () => `/repos/octo/demo/git/blobs/${readmeBlob}`,
    status: 200,
  },
  {
    name: 'get missing blob',
    method: 'GET',
    template: `${R}/git/blobs/{file_sha}`,
    path: () => `/repos/octo/demo/git/blobs/${'0'.repeat(40)}`,
    status: 404,
  },
  {
    name: 'list commits',
    method: 'GET',
    template: `${R}/commits`,
    path: () => '/repos/octo/demo/commits?path=src&per_page=2',
    status: 200,
  },
  {
    name: 'list commits: empty repo',
    method: 'GET',
    template: `${R}/commits`,
    path: () => '/repos/octo/empty/commits',
    status: 409,
  },
  {
    name: 'list commits: missing repo',
    method: 'GET',
    template: `${R}/commits`,
    path: () => '/repos/octo/nope/commits',
    status: 404,
  },
  {
    name: 'get commit',
    method: 'GET',
    template: `${R}/commits/{ref}`,
    path: () => '/repos/octo/demo/commits/main',
    status: 200,
  },
  {
    name: 'get root commit',
    method: 'GET',
    template: `${R}/commits/{ref}`,
    path: () => '/repos/octo/demo/commits/feature%2Fx',
    status: 200,
  },
  {
    name: 'get unknown commit',
    method: 'GET',
    template: `${R}/commits/{ref}`,
    path: () => '/repos/octo/demo/commits/nope',
    status: 422,
  },
  {
    name: 'get commit: empty repo',
    method: 'GET',
    template: `${R}/commits/{ref}`,
    path: () => '/repos/octo/empty/commits/main',
    status: 409,
  },
  {
    name: 'compare',
    method: 'GET',
    template: `${R}/compare/{basehead}`,
    path: () => '/repos/octo/demo/compare/main...feature%2Fx',
    status: 200,
  },
  {
    name: 'compare unknown',
    method: 'GET',
    template: `${R}/compare/{basehead}`,
    path: () => '/repos/octo/demo/compare/main...nope',
    status: 404,
  },
  {
    name: 'get git commit',
    method: 'GET',
    template: `${R}/git/commits/{commit_sha}`,
    path: () => `/repos/octo/demo/git/commits/${main}`,
    status: 200,
  },
  { name: 'rate limit', method: 'GET', template: '/rate_limit', path: () => '/rate_limit', status: 200 },
  {
    name: 'create blob',
    method: 'POST',
    template: `${R}/git/blobs`,
    path: () => '/repos/octo/demo/git/blobs',
    body: () => ({ content: 'aGk=', encoding: 'base64' }),
    status: 201,
  },
  {
    name: 'create blob: empty repo',
    method: 'POST',
    template: `${R}/git/blobs`,
    path: () => '/repos/octo/empty/git/blobs',
    body: () => ({ content: 'x' }),
    status: 409,
  },
  {
    name: 'create blob: missing content',
    method: 'POST',
    template: `${R}/git/blobs`,
    path: () => '/repos/octo/demo/git/blobs',
    body: () => ({}),
    status: 422,
  },
  {
    name: 'create tree',
    method: 'POST',
    template: `${R}/git/trees`,
    path: () => '/repos/octo/demo/git/trees',
    body: () => ({
      base_tree: tree,
      tree: [
        { path: 'n/new.txt', mode: '100644', type: 'blob', content: 'new' },
        { path: 'README.md', mode: '100644', type: 'blob', sha: null },
      ],
    }),
    status: 201,
  },
  {
    name: 'create tree: bad sha',
    method: 'POST',
    template: `${R}/git/trees`,
    path: () => '/repos/octo/demo/git/trees',
    body: () => ({ tree: [{ path: 'a', mode: '100644', type: 'blob', sha: tree }] }),
    status: 422,
  },
  {
    name: 'create commit',
    method: 'POST',
    template: `${R}/git/commits`,
    path: () => '/repos/octo/demo/git/commits',
    body: () => ({ message: 'm', tree, parents: [main] }),
    status: 201,
  },
  {
    name: 'create commit: bad tree',
    method: 'POST',
    template: `${R}/git/commits`,
    path: () => '/repos/octo/demo/git/commits',
    body: () => ({ message: 'm', tree: '1'.repeat(40) }),
    status: 422,
  },
  {
    name: 'create ref',
    method: 'POST',
    template: `${R}/git/refs`,
    path: () => '/repos/octo/demo/git/refs',
    body: () => ({ ref: 'refs/heads/spec-made', sha: main }),
    status: 201,
  },
  {
    name: 'create ref: exists',
    method: 'POST',
    template: `${R}/git/refs`,
    path: () => '/repos/octo/demo/git/refs',
    body: () => ({ ref: 'refs/heads/main', sha: main }),
    status: 422,
  },
  {
    name: 'update ref',
    method: 'PATCH',
    template: `${R}/git/refs/{ref}`,
    path: () => '/repos/octo/demo/git/refs/heads%2Fspec-made',
    body: () => ({ sha: main, force: false }),
    status: 200,
  },
  {
    name: 'update ref: missing',
    method: 'PATCH',
    template: `${R}/git/refs/{ref}`,
    path: () => '/repos/octo/demo/git/refs/heads/nope',
    body: () => ({ sha: main }),
    status: 422,
  },
  {
    name: 'update ref: empty repo',
    method: 'PATCH',
    template: `${R}/git/refs/{ref}`,
    path: () => '/repos/octo/empty/git/refs/heads/main',
    body: () => ({ sha: main }),
    status: 409,
  },
];

describe('responses match GitHub’s OpenAPI description', () => {
  it.each(cases)('$name → $status', async (c) => {
    const res = await fx.call(c.method, c.path(), c.body?.());
    expect(res.status, JSON.stringify(res.body)).toBe(c.status);
    expect(documentedStatuses(c.method, c.template)).toContain(String(c.status));
    const v = validate(c.method.toLowerCase(), c.template, c.status, res.body);
    expect(v.errors).toEqual([]);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    for (const h of ['limit', 'remaining', 'used', 'reset', 'resource'])
      expect(res.headers.get(`x-ratelimit-${h}`)).not.toBeNull();
    if (c.status === 201) expect(res.headers.get('location')).toBe((res.body as Obj).url);
    if (c.status >= 400) {
      expect(validateComponent('basic-error', res.body).errors).toEqual([]);
      expect(res.body).toMatchObject({
        message: expect.any(String),
        documentation_url: expect.stringMatching(/^https:\/\/docs\.github\.com\//),
        status: String(c.status),
      });
    }
    const link = res.headers.get('link');
    if (link) for (const m of link.matchAll(/<([^>]+)>/g)) expect(m[1]?.startsWith(`${fx.em.url}/`)).toBe(true);
  });

  it('covers every route the emulator serves', () => {
    const templates = new Set(cases.map((c) => `${c.method} ${c.template}`));
    const served = new Set(fx.em.requests.filter((r) => r.route).map((r) => r.route));
    expect([...served].filter((r) => r && !r.includes('DELETE')).sort()).toEqual([...templates].sort());
  });

  it('rejects a tree without `truncated` (the validator is not vacuous)', () => {
    const bad = {
      sha: 'a'.repeat(40),
      url: 'http://x/',
      tree: [{ path: 'a', mode: '100644', type: 'blob', sha: 'b'.repeat(40), size: '12' }],
    };
    expect(validate('get', `${R}/git/trees/{tree_sha}`, 200, bad).ok).toBe(false);
  });

  it('401 bodies are basic-error', async () => {
    const res = await fx.get('/repos/octo/demo', { token: 'wrong' });
    expect(res.status).toBe(401);
    expect(validateComponent('basic-error', await res.json()).errors).toEqual([]);
  });
});
