import { describe, expect, it } from 'vitest';
import { linkServable, resolveLinkTarget } from '../../src/core/symlink.js';
import { scopeOf } from '../../src/core/scope.js';
import { DEFAULT_PRIVACY, withPrivacy } from '../../src/core/privacy.js';

describe('resolveLinkTarget', () => {
  it.each([
    ['app/link', 'lib/x.ts', 'app/lib/x.ts'],
    ['app/a/link', '../b/x', 'app/b/x'],
    ['app/link', './x//y/', 'app/x/y'],
    ['link', 'app/x', 'app/x'],
    ['app/link', '..', undefined],
    ['app/link', '../..', undefined],
    ['app/link', '../../etc/passwd', undefined],
    ['app/link', '/etc/passwd', undefined],
    ['app/link', '', undefined],
    ['app/link', 'a\\b', undefined],
    ['app/link', 'x\u0000y', undefined],
  ])('%s -> %j resolves to %j', (link, target, want) => expect(resolveLinkTarget(link, target)).toBe(want));
});

describe('linkServable', () => {
  const scope = withPrivacy(scopeOf({ read: ['app/**', 'docs/*.md'], write: [] }), DEFAULT_PRIVACY);
  it('serves a link only when both the link and its resolved target are readable', () => {
    expect(linkServable('app/link', 'lib/util.ts', scope)).toBe(true);
    expect(linkServable('app/link', '../docs/guide.md', scope)).toBe(true);
    expect(linkServable('app/link', '../secret/keys.txt', scope)).toBe(false);
    expect(linkServable('app/link', '.env', scope)).toBe(false);
    expect(linkServable('app/link', '../../../../etc/hostname', scope)).toBe(false);
    expect(linkServable('secret/link', '../app/main.ts', scope)).toBe(false);
  });
});
