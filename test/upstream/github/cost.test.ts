// Request economy: no request per entry or per file beyond the blob itself, immutable objects served from the
// cache, and mutable refs revalidated with If-None-Match (304s are free on GitHub's primary limit).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './harness.js';

let h: Harness;
let repo: string;
const files = Object.fromEntries(
  Array.from({ length: 8 }, (_, i) => [`src/mod/f${i}.ts`, `export const f${i} = ${i};\n`]),
);

beforeAll(async () => {
  h = await startHarness();
  ({ name: repo } = await h.repo([
    { message: 'initial', files: { ...files, 'README.md': 'hi\n' } },
    { message: 'second', files: { 'src/mod/f0.ts': 'changed\n', 'docs/d.md': 'd\n' } },
  ]));
});
afterAll(async () => {
  await h.close();
});

const routes = (rs: { method: string; route?: string; status: number }[]): string[] =>
  rs.map((r) => `${r.status} ${r.route ?? r.method}`);

describe('request counts', () => {
  // Two, not three: git/trees accepts the commit SHA, so the commit object is not read first (issue 11 item 7).
  it('lists a tree in two requests cold and one 304 warm', async () => {
    const u = h.upstream();
    let mark = h.mark();
    expect((await u.getTree(repo, 'main', 'src')).ok).toBe(true);
    expect(routes(mark())).toEqual([
      '200 GET /repos/{owner}/{repo}/git/ref/{ref}',
      '200 GET /repos/{owner}/{repo}/git/trees/{tree_sha}',
    ]);
    mark = h.mark();
    expect((await u.getTree(repo, 'main', '')).ok).toBe(true);
    expect(routes(mark())).toEqual(['304 GET /repos/{owner}/{repo}/git/ref/{ref}']);
    expect(u.stats()).toMatchObject({ requests: 3, notModified: 1 });
    expect(u.stats().cacheHits).toBeGreaterThanOrEqual(2);
  });

  it('reads N files with one blob request each (tree reused), and none warm', async () => {
    const u = h.upstream();
    await u.getTree(repo, 'main', '');
    const paths = Object.keys(files);
    let mark = h.mark();
    const r = await u.readFiles(repo, 'main', paths);
    expect(r.ok && r.value.every((f) => f.ok)).toBe(true);
    const cold = routes(mark());
    expect(cold.filter((x) => x.includes('/git/blobs/'))).toHaveLength(paths.length);
    expect(cold.filter((x) => !x.includes('/git/blobs/'))).toEqual(['304 GET /repos/{owner}/{repo}/git/ref/{ref}']);
    mark = h.mark();
    await u.readFiles(repo, 'main', paths);
    expect(routes(mark())).toEqual(['304 GET /repos/{owner}/{repo}/git/ref/{ref}']);
  });

  it('reads without a listing by walking only the trees on the path', async () => {
    const u = h.upstream();
    const mark = h.mark();
    await u.readFiles(repo, 'main', ['src/mod/f1.ts', 'src/mod/f2.ts', 'README.md']);
    const trees = routes(mark()).filter((x) => x.includes('/git/trees/'));
    expect(trees).toHaveLength(3); // root, src, src/mod — shared by every path
  });

  it('lists history with one request per prefix page, and one 304 warm', async () => {
    const u = h.upstream();
    let mark = h.mark();
    const first = await u.listCommits(repo, 'main', { paths: ['src', 'docs', 'README.md'], skip: 0, limit: 5 });
    expect(first.ok && first.value.commits.map((c) => c.message)).toEqual(['second', 'initial']);
    expect(routes(mark()).filter((x) => x.endsWith('/commits'))).toHaveLength(3);
    mark = h.mark();
    await u.listCommits(repo, 'main', { paths: ['src', 'docs', 'README.md'], skip: 0, limit: 5 });
    expect(routes(mark())).toEqual(['304 GET /repos/{owner}/{repo}/git/ref/{ref}']);
  });

  it('caches commits by SHA and reachability by (sha, head)', async () => {
    const u = h.upstream();
    const head = (await u.branchHead(repo, 'main')) as { ok: true; value: string };
    const parent = await u.listCommits(repo, 'main', { paths: [''], skip: 1, limit: 1 });
    const sha = parent.ok ? (parent.value.commits[0]?.sha ?? '') : '';
    expect((await u.getCommit(repo, sha, 'main')).ok).toBe(true);
    const mark = h.mark();
    expect((await u.getCommit(repo, sha, 'main')).ok).toBe(true);
    expect((await u.getCommit(repo, head.value)).ok).toBe(true);
    expect(routes(mark())).toEqual([
      '304 GET /repos/{owner}/{repo}/git/ref/{ref}',
      '200 GET /repos/{owner}/{repo}/commits/{ref}',
    ]);
  });

  it('keeps the cache within its byte budget', async () => {
    const u = h.upstream({ cacheBytes: 4096 });
    await u.readFiles(repo, 'main', Object.keys(files));
    const mark = h.mark();
    await u.readFiles(repo, 'main', Object.keys(files));
    // A tiny budget evicts: some objects are fetched again, but the answers stay right.
    expect(mark().length).toBeGreaterThan(1);
  });
});
