import { describe, expect, it } from 'vitest';
import {
  cursorFits,
  diffListings,
  excerpt,
  linksToJudge,
  parseCursorPayload,
  queryProblem,
  scopeOf,
  type TreeEntry,
} from '../../src/core/index.js';
import { cursorSeal } from '../../src/mcp/cursor.js';

const f = (path: string, sha: string): TreeEntry => ({ path, type: 'file', sha: sha.repeat(40).slice(0, 40), size: 1 });
const scope = scopeOf({ read: ['app/**'], write: [] });

describe('diffListings', () => {
  it('lists added, modified, deleted and exact renames among readable paths only', () => {
    const base = [f('app/a', 'a'), f('app/b', 'b'), f('app/c', 'c'), f('secret/s', 'd'), f('app/gone', 'e')];
    const head = [
      f('app/a', 'a'),
      f('app/b', '9'),
      f('app/c2', 'c'),
      f('secret/s', '8'),
      f('app/new', 'f'),
      f('app/from-secret', 'd'),
    ];
    expect(diffListings(base, head, scope)).toEqual([
      { path: 'app/b', change: 'modified' },
      { path: 'app/c2', change: 'renamed', previous_path: 'app/c' },
      { path: 'app/from-secret', change: 'added' },
      { path: 'app/gone', change: 'deleted' },
      { path: 'app/new', change: 'added' },
    ]);
  });
  it('never pairs a hidden file with a visible one, nor empty files', () => {
    const empty = 'e69de29bb2d1d6434b8b29ae775ad8c2e48c5391';
    expect(
      diffListings(
        [f('secret/x', 'a'), { ...f('app/e1', 'x'), sha: empty }],
        [f('app/x', 'a'), { ...f('app/e2', 'x'), sha: empty }],
        scope,
      ),
    ).toEqual([
      { path: 'app/e1', change: 'deleted' },
      { path: 'app/e2', change: 'added' },
      { path: 'app/x', change: 'added' },
    ]);
  });
});

describe('diffListings with symlinks (issue 19: one visibility rule with get_tree)', () => {
  const l = (path: string, sha: string): TreeEntry => ({ path, type: 'symlink', sha: sha.repeat(40).slice(0, 40) });
  it('counts a link on a side only while its target is readable there', () => {
    const base = [l('app/ok', 'a'), l('app/flip', 'b'), l('app/hid', 'c')];
    const head = [l('app/ok', 'a'), l('app/flip', 'd'), l('app/hid', 'e'), l('app/new-bad', 'f'), l('app/new-ok', '1')];
    const links = {
      base: new Map([
        ['app/flip', 'ok'],
        ['app/hid', '../secret/x'],
      ]),
      head: new Map<string, string | undefined>([
        ['app/flip', '../secret/x'],
        ['app/hid', '/etc/passwd'],
        ['app/new-bad', undefined],
        ['app/new-ok', 'ok'],
      ]),
    };
    expect(diffListings(base, head, scope, links)).toEqual([
      { path: 'app/flip', change: 'deleted' },
      { path: 'app/new-ok', change: 'added' },
    ]);
    // Without links (the operator surface) every readable link counts as it is.
    expect(diffListings(base, head, scope).map((c) => c.path)).toEqual([
      'app/flip',
      'app/hid',
      'app/new-bad',
      'app/new-ok',
    ]);
  });
  it('reads only readable links that differ between the sides, at most `max` per side in path order', () => {
    const base = [l('app/same', 'a'), l('app/b', 'b'), l('secret/l', 'c'), l('app/gone', 'g')];
    const head = [l('app/same', 'a'), l('app/b', 'x'), l('secret/l', 'y'), l('app/z1', '1'), l('app/z2', '2')];
    expect(linksToJudge(base, head, scope, 10)).toEqual({
      base: ['app/b', 'app/gone'],
      head: ['app/b', 'app/z1', 'app/z2'],
    });
    expect(linksToJudge(base, head, scope, 2)).toEqual({ base: ['app/b', 'app/gone'], head: ['app/b', 'app/z1'] });
  });
});

describe('cursor payloads and sealing', () => {
  const key = new Uint8Array(32).fill(7);
  const seal = cursorSeal(key);
  const payload = { v: 1 as const, who: 'agent:p', repo: '/r', branch: 'main', commit: 'a'.repeat(40) };
  it('round-trips, differs per seal, refuses edits, other keys and junk', () => {
    const a = seal.seal(JSON.stringify(payload));
    const b = seal.seal(JSON.stringify(payload));
    expect(a).not.toBe(b);
    expect(parseCursorPayload(seal.open(a) ?? '')).toEqual(payload);
    const raw = Buffer.from(a.slice(5), 'base64url');
    raw[15] = (raw[15] ?? 0) ^ 1;
    expect(seal.open(`gbc1.${raw.toString('base64url')}`)).toBeUndefined();
    expect(cursorSeal(new Uint8Array(32).fill(8)).open(a)).toBeUndefined();
    for (const junk of ['', 'gbc1.', 'gbc1.AAAA', JSON.stringify(payload), 'x'.repeat(5000)])
      expect(seal.open(junk)).toBeUndefined();
  });
  it('parses only well-formed payloads and fits only its own place', () => {
    expect(parseCursorPayload('{"v":1}')).toBeUndefined();
    expect(parseCursorPayload('not json')).toBeUndefined();
    expect(parseCursorPayload(JSON.stringify({ ...payload, extra: 1 }))).toBeUndefined();
    expect(cursorFits(payload, { who: 'agent:p', repo: '/r', branch: 'main' })).toBe(true);
    expect(cursorFits(payload, { who: 'agent:q', repo: '/r', branch: 'main' })).toBe(false);
    expect(cursorFits(payload, { who: 'agent:p', repo: '/r', branch: 'dev' })).toBe(false);
  });
});

describe('search rules', () => {
  it('refuses control characters and invalid regular expressions, accepts tabs', () => {
    expect(queryProblem('a\tb', false, false)).toBeUndefined();
    expect(queryProblem('a\nb', false, false)).toMatch(/line break/);
    expect(queryProblem('a\u0000', false, false)).toMatch(/control/);
    expect(queryProblem('(', true, false)).toMatch(/not valid/);
    expect(queryProblem('(', false, false)).toBeUndefined();
  });
  it('cuts a long line to 300 characters around the match', () => {
    const line = `${'x'.repeat(1000)}MATCH${'y'.repeat(1000)}`;
    const cut = excerpt(line, 1, 1001);
    expect(cut.length).toBe(300);
    expect(cut.indexOf('MATCH')).toBe(100);
    expect(excerpt('short', 1, 1)).toBe('short');
  });
});
