import { describe, expect, it } from 'vitest';
import { blindBadLinks, linkCandidates, linkKey } from '../../src/core/commitlinks.js';
import { scopeOf } from '../../src/core/scope.js';

const scope = scopeOf({ read: ['app/**'], write: [] });
const NL = '\n\\ No newline at end of file';

describe('linkCandidates', () => {
  it('picks one-line changes without a final newline on readable paths, at the right side', () => {
    const got = linkCandidates(
      [
        { path: 'app/l', status: 'added', additions: 1, deletions: 0, patch: `@@ -0,0 +1 @@\n+../x${NL}` },
        { path: 'app/m', status: 'modified', additions: 1, deletions: 1, patch: `@@ -1 +1 @@\n-a${NL}\n+b${NL}` },
        { path: 'app/gone', status: 'removed', additions: 0, deletions: 1, patch: `@@ -1 +0,0 @@\n-t${NL}` },
        { path: 'app/text', status: 'added', additions: 2, deletions: 0, patch: `@@ -0,0 +1,2 @@\n+a\n+b${NL}` },
        { path: 'app/plain', status: 'added', additions: 1, deletions: 0, patch: '@@ -0,0 +1 @@\n+a' },
        { path: 'secret/l', status: 'added', additions: 1, deletions: 0, patch: `@@ -0,0 +1 @@\n+x${NL}` },
      ],
      scope,
    );
    expect(got).toEqual({ atNew: ['app/l', 'app/m'], atOld: ['app/m', 'app/gone'] });
  });
});

describe('blindBadLinks', () => {
  it('drops patch and counts of a bad link, on either side, and nothing else', () => {
    const files = [
      { path: 'app/l', status: 'added' as const, additions: 1, deletions: 0, patch: '+../secret' },
      { path: 'app/r', status: 'renamed' as const, previous_path: 'app/q', additions: 1, deletions: 1, patch: 'x' },
      { path: 'app/ok', status: 'added' as const, additions: 1, deletions: 0, patch: '+lib' },
    ];
    expect(blindBadLinks(files, new Set([linkKey('new', 'app/l'), linkKey('old', 'app/q')]))).toEqual([
      { path: 'app/l', status: 'added', additions: 0, deletions: 0 },
      { path: 'app/r', status: 'renamed', previous_path: 'app/q', additions: 0, deletions: 0 },
      files[2],
    ]);
  });
});
