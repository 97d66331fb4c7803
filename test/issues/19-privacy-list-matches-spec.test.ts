// Issue 19 class 9: SPEC §4.7 promised `credentials*`, `.aws/` and `*.sqlite*`, but the code hid only
// `credentials`, `credentials.json`, `.aws/credentials|config` and `*.sqlite|*.sqlite3`, so `credentials.csv` (the AWS
// console's key download), `.aws/sso/cache/*.json` and `app.sqlite.bak` were served. The code's list is the one
// source: the SPEC and README write it out, this test parses both and fails when either drifts from the code, and
// serves a sample path for every listed pattern on both upstreams, where each must read exactly like a missing file.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_PRIVACY_PATTERNS, expandBraces } from '../../src/core/index.js';
import { bytesOf, UPSTREAM_KINDS, serveBoth, type Served } from '../support/both-upstreams.js';

const doc = (name: string): string => readFileSync(new URL(`../../${name}`, import.meta.url), 'utf8');

/** The backticked patterns after "The built-in patterns", up to the end of that sentence. */
function listedPatterns(text: string): string[] {
  const start = text.indexOf('The built-in patterns');
  if (start < 0) throw new Error('no "The built-in patterns" sentence');
  let inTick = false;
  let end = start;
  for (; end < text.length; end++) {
    const c = text[end];
    if (c === '`') inTick = !inTick;
    else if (!inTick && c === '.' && /\s/.test(text[end + 1] ?? ' ')) break;
  }
  return [...text.slice(start, end).matchAll(/`([^`]+)`/g)].map((m) => m[1] ?? '');
}

/** A documented pattern in the code's dialect: anchored at any depth, a trailing slash hiding the whole directory. */
const asCode = (listed: string): string => (listed.endsWith('/') ? `**/${listed.slice(0, -1)}/**` : `**/${listed}`);

/** Paths each pattern must hide, below a readable directory: every brace alternative, `*` filled in. */
function samplesOf(listed: string): string[] {
  return expandBraces(listed).map((alt) => `app/${alt.endsWith('/') ? `${alt}sample.txt` : alt.replaceAll('*', 'x9')}`);
}

const SPEC = listedPatterns(doc('SPEC.md'));
const README = listedPatterns(doc('README.md'));

describe('the privacy list has one source', () => {
  it.each([
    ['SPEC.md', SPEC],
    ['README.md', README],
  ])('%s lists exactly the code patterns', (_name, listed) => {
    expect([...listed.map(asCode)].sort()).toEqual([...DEFAULT_PRIVACY_PATTERNS].sort());
  });
});

// git cannot store a `.git` path component, so `.git/` is judged by the core tests alone.
const SAMPLES = [...new Set([...SPEC, ...README])].filter((p) => p !== '.git/').flatMap(samplesOf);
// The three the review found served.
const REPORTED = ['app/credentials.csv', 'app/.aws/sso/cache/0123abcd.json', 'app/data/app.sqlite.bak'];

describe.each(UPSTREAM_KINDS)('%s upstream: every listed pattern hides a sample', (kind) => {
  let s: Served;
  const all = [...new Set([...SAMPLES, ...REPORTED])];
  beforeAll(async () => {
    const files: Record<string, string> = { 'app/main.ts': 'visible\n' };
    for (const p of all) files[p] = `SECRET ${p}\n`;
    s = await serveBoth(kind, [{ message: 'init', files }]);
    await s.srv.perimeter({ id: 'p', repo: s.repo, read: ['app/**'], write: [] });
  }, 60_000);
  afterAll(async () => s?.close());

  it('get_tree lists none of them', async () => {
    const a = await s.srv.connect('/mcp/p');
    const r = await a.call('get_tree', { path: 'app', recursive: true });
    const files = r.structured.entries
      .filter((e: { type: string }) => e.type !== 'dir')
      .map((e: { path: string }) => e.path);
    expect(files).toEqual(['app/main.ts']);
  });

  it('get_file answers each exactly like a missing file', async () => {
    const a = await s.srv.connect('/mcp/p');
    const missing = bytesOf(await a.call('get_file', { path: 'app/nope' }))
      .split('app/nope')
      .join('P');
    for (const p of all)
      expect(
        bytesOf(await a.call('get_file', { path: p }))
          .split(p)
          .join('P'),
        p,
      ).toBe(missing);
  });
});
