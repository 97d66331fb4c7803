// Issue 19 class 1: local search_code handed `git grep -P` the literal prefixes of the read globs, so the agent's
// pattern ran over privacy-zone files (and over the whole repository when a glob had no literal prefix), and a PCRE
// match-limit failure on a hidden line turned the whole answer into a refusal: one bit per call about a secret.
// Now the pattern runs on readable bytes only, and an engine failure belongs to the (readable) file it happened on.
// Class 5 as it applies here: a directory holding only a symlink to a hidden target reads as missing, as in get_tree.
// Each case serves twin repositories that differ only in what the perimeter cannot see and compares the answers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CommitSpec } from '../support/gitdir.js';
import { bytesOf, UPSTREAM_KINDS, serveBoth, type Served } from '../support/both-upstreams.js';

// PCRE (git grep -P) gives up on this line with "match limit exceeded"; V8 takes a few hundred milliseconds.
const BOMB = `${'a'.repeat(22)}!\n`;
const PATTERN = '^(\\w+\\s?)*$';

const visible: Record<string, string | { symlink: string }> = {
  'app/main.ts': 'hello world\n',
  'app/lib/util.ts': 'hello util\n',
  'docs/guide.md': 'hello docs\n',
};

const hidden: Record<string, string | { symlink: string }> = {
  // A privacy-zone file inside the read prefix, small and huge.
  'app/.env': `TOKEN=${BOMB}`,
  'app/lib/prod.env': BOMB.repeat(100_000),
  // Outside every read glob (and outside every literal prefix of `**/*.ts`).
  'notes/bomb.txt': BOMB,
  'notes/bomb.ts.bak': BOMB,
  // A directory whose only entry is a link to a hidden file.
  'app/deep/far': { symlink: '../../notes/bomb.txt' },
};

const twin = (withHidden: boolean): CommitSpec[] => [
  { message: 'init', files: { ...visible, ...(withHidden ? hidden : {}) } },
];

describe.each(UPSTREAM_KINDS)('%s upstream', (kind) => {
  let plain: Served;
  let twinned: Served;
  beforeAll(async () => {
    [plain, twinned] = await Promise.all([serveBoth(kind, twin(false)), serveBoth(kind, twin(true))]);
    for (const s of [plain, twinned]) {
      await s.srv.perimeter({ id: 'app', repo: s.repo, read: ['app/**'], write: [] });
      await s.srv.perimeter({ id: 'ts', repo: s.repo, read: ['**/*.ts'], write: [] });
    }
  }, 120_000);
  afterAll(async () => {
    await plain?.close();
    await twinned?.close();
  });

  /** The same call on both twins; returns the hidden-side answer after asserting both are byte-identical. */
  async function both(perimeter: string, args: Record<string, unknown>) {
    const a = await (await plain.srv.connect(`/mcp/${perimeter}`)).call('search_code', args);
    const b = await (await twinned.srv.connect(`/mcp/${perimeter}`)).call('search_code', args);
    expect(bytesOf(b)).toBe(bytesOf(a));
    return b;
  }

  it('a regex that PCRE gives up on in a privacy-zone file does not change the answer', async () => {
    const r = await both('app', { query: PATTERN, regex: true });
    expect(r.isError, r.text).toBeUndefined();
    expect(r.structured.matches.map((m: { path: string }) => m.path)).toEqual(['app/lib/util.ts', 'app/main.ts']);
  }, 30_000);

  it('a read glob without a literal prefix never lets the pattern run over the rest of the repository', async () => {
    const r = await both('ts', { query: PATTERN, regex: true });
    expect(r.isError, r.text).toBeUndefined();
    expect(r.structured.matches.map((m: { path: string }) => m.path)).toEqual(['app/lib/util.ts', 'app/main.ts']);
  }, 30_000);

  it('a huge hidden file under a readable prefix does not change a literal search', async () => {
    const r = await both('app', { query: 'a', max_results: 1 });
    expect(r.structured).toEqual({ matches: [], truncated: false });
    const h = await both('app', { query: 'hello', path: 'app/lib' });
    expect(h.structured.matches).toHaveLength(1);
  }, 30_000);

  it('a directory holding only a link to a hidden target reads like a missing directory', async () => {
    const deep = await both('app', { query: 'a', path: 'app/deep' });
    const missing = await both('app', { query: 'a', path: 'app/nope' });
    expect(bytesOf(deep).split('app/deep').join('D')).toBe(bytesOf(missing).split('app/nope').join('D'));
  }, 30_000);
});

describe('local upstream: an engine failure on a readable file', () => {
  let s: Served;
  beforeAll(async () => {
    s = await serveBoth('local', [
      { message: 'init', files: { ...visible, 'app/n-bomb.txt': BOMB, 'app/z.ts': 'hello z\n', ...hidden } },
    ]);
    await s.srv.perimeter({ id: 'app', repo: s.repo, read: ['app/**'], write: [] });
  }, 60_000);
  afterAll(async () => s?.close());

  it('skips that file, says so, and keeps every other file’s matches', async () => {
    const a = await s.srv.connect('/mcp/app');
    const r = await a.call('search_code', { query: PATTERN, regex: true });
    expect(r.isError, r.text).toBeUndefined();
    expect(r.structured.matches.map((m: { path: string }) => m.path)).toEqual([
      'app/lib/util.ts',
      'app/main.ts',
      'app/z.ts',
    ]);
    expect(r.structured.skipped).toEqual(['app/n-bomb.txt']);
    expect(r.text).toContain('app/n-bomb.txt');
    // Stopped at the limit before reaching the failing file: nothing to report.
    const first = await a.call('search_code', { query: PATTERN, regex: true, max_results: 1 });
    expect(first.structured).toEqual({
      matches: [expect.objectContaining({ path: 'app/lib/util.ts' })],
      truncated: true,
    });
  }, 30_000);
});
