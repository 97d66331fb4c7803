import { describe, expect, it } from 'vitest';
import { materialize, Perimeter, PerimeterSpec, validateBranchName } from '../../src/core/index.js';

describe('validateBranchName', () => {
  it.each([['main'], ['feature/x'], ['release-1.2'], ['a/b/c'], ['v1.0'], ['user@host']])('accepts %j', (b) => {
    expect(validateBranchName(b)).toEqual({ ok: true, value: b });
  });

  it.each([
    [''],
    [undefined],
    ['-rf'],
    ['/main'],
    ['main/'],
    ['main.'],
    ['main.lock'],
    ['a.lock/b'],
    ['@'],
    ['a..b'],
    ['a//b'],
    ['a@{1}'],
    ['a/.b'],
    ['.hidden'],
    ['a b'],
    ['a\tb'],
    ['a\0b'],
    ['a~1'],
    ['a^'],
    ['a:b'],
    ['a?'],
    ['a*'],
    ['a[b'],
    ['a\\b'],
    ['a\x7f'],
    ['x'.repeat(256)],
  ])('rejects %j', (b) => {
    expect(validateBranchName(b).ok).toBe(false);
  });
});

describe('perimeter schema', () => {
  it('rejects bad globs, bad branches, reserved and malformed ids', () => {
    const base = { id: 'team', repo: 'o/r' };
    expect(PerimeterSpec.safeParse({ ...base, read: ['infra/**'] }).success).toBe(true);
    expect(PerimeterSpec.safeParse({ ...base, read: ['../infra/**'] }).success).toBe(false);
    expect(PerimeterSpec.safeParse({ ...base, read: ['{..,x}/y'] }).success).toBe(false);
    expect(PerimeterSpec.safeParse({ ...base, write: ['/abs'] }).success).toBe(false);
    expect(PerimeterSpec.safeParse({ ...base, branches: ['a..b'] }).success).toBe(false);
    expect(PerimeterSpec.safeParse({ ...base, id: 'root' }).success).toBe(false);
    expect(PerimeterSpec.safeParse({ ...base, id: 'Team' }).success).toBe(false);
    expect(PerimeterSpec.safeParse({ ...base, id: '../x' }).success).toBe(false);
    expect(PerimeterSpec.safeParse({ ...base, extra: 1 }).success).toBe(false);
  });

  it('materialize puts the default branch first, once, and dedupes tools', () => {
    const spec = PerimeterSpec.parse({
      id: 'team',
      repo: 'o/r',
      branches: ['dev', 'main', 'dev'],
      tools: ['get_file', 'get_file'],
    });
    const p = materialize(spec, 'main');
    expect(p.branches).toEqual(['main', 'dev']);
    expect(p.tools).toEqual(['get_file']);
    expect(Perimeter.safeParse(p).success).toBe(true);
  });

  it('materialize leaves tools undefined when the spec grants the catalogue', () => {
    const p = materialize(PerimeterSpec.parse({ id: 'team', repo: 'o/r' }), 'main');
    expect('tools' in p).toBe(false);
    expect(p.branches).toEqual(['main']);
  });
});
