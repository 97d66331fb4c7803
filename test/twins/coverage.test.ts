// Issue 19 §1: every agent tool in the one tool list is driven by a twin driver, or this fails with its name. A new
// tool (search, fetch, pull requests…) is picked up from ALL_TOOLS without anyone editing this test.
import { describe, expect, it } from 'vitest';
import { ALL_TOOLS } from '../../src/registry/index.js';
import { HISTORY_DRIVEN } from './driven.js';
import { WORKTREE_DRIVEN } from './worktree/driven.js';

describe('twin check coverage', () => {
  it('drives every agent tool on one of the twin drivers', () => {
    const driven = new Set([...HISTORY_DRIVEN, ...WORKTREE_DRIVEN]);
    const undriven = ALL_TOOLS.filter((t) => t.surfaces.includes('agent') && !driven.has(t.name)).map((t) => t.name);
    expect(undriven, `agent tools no twin driver calls: ${undriven.join(', ')}`).toEqual([]);
  });

  it('names only tools that exist (a renamed tool does not stay "driven")', () => {
    const names = new Set(ALL_TOOLS.map((t) => t.name));
    expect([...HISTORY_DRIVEN, ...WORKTREE_DRIVEN].filter((n) => !names.has(n))).toEqual([]);
  });
});
