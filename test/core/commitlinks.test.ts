import { describe, expect, it } from 'vitest';
import { linkCandidates } from '../../src/core/commitlinks.js';
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
        // A type change (file -> link) has no usable patch; either side may be the link.
        { path: 'app/t', status: 'changed', additions: 1, deletions: 7 },
      ],
      scope,
    );
    expect(got).toEqual({ atNew: ['app/l', 'app/m', 'app/t'], atOld: ['app/m', 'app/gone', 'app/t'] });
  });
});
