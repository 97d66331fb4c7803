import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { diffstat, editScript, hunks, splitLines } from '../../src/http/web/linediff.js';

// Applying the script to `a` must give `b` exactly, whatever the budget.
const apply = (a: string[], script: ReturnType<typeof editScript>) => {
  const out: string[] = [];
  let i = 0;
  for (const e of script) {
    if (e.kind === 'same') {
      expect(e.text).toBe(a[i]);
      out.push(e.text);
      i++;
    } else if (e.kind === 'del') {
      expect(e.text).toBe(a[i]);
      i++;
    } else out.push(e.text);
  }
  expect(i).toBe(a.length);
  return out;
};

describe('line diff', () => {
  it('turns a into b, minimal on small inputs and exact past the budget', () => {
    const line = fc.constantFrom('a', 'b', 'c', 'd', '');
    fc.assert(
      fc.property(
        fc.array(line, { maxLength: 40 }),
        fc.array(line, { maxLength: 40 }),
        fc.integer({ min: 0, max: 30 }),
        (a, b, maxD) => {
          expect(apply(a, editScript(a, b))).toEqual(b);
          expect(apply(a, editScript(a, b, maxD))).toEqual(b);
        },
      ),
    );
  });

  it('a one-line change is one del and one add with three lines of context', () => {
    const before = Array.from({ length: 20 }, (_, i) => `line ${i}`).join('\n') + '\n';
    const after = before.replace('line 10\n', 'line ten\n');
    const d = hunks(before, after);
    expect(d[0]).toEqual({ kind: 'hunk', text: '@@ -8,7 +8,7 @@' });
    expect(d.filter((l) => l.kind === 'same')).toHaveLength(6);
    expect(diffstat(d)).toEqual({ added: 1, removed: 1 });
  });

  it('a new file is one hunk of additions; identical texts have no hunks', () => {
    const text = Array.from({ length: 10_000 }, (_, i) => `${i}`).join('\n');
    const d = hunks('', text);
    expect(d[0]).toEqual({ kind: 'hunk', text: '@@ -0,0 +1,10000 @@' });
    expect(diffstat(d)).toEqual({ added: 10_000, removed: 0 });
    expect(hunks(text, text)).toEqual([]);
    expect(splitLines('a\nb\n')).toEqual(['a', 'b']);
  });

  it('two completely different 10,000-line files finish fast (the budget falls back to delete-then-add)', () => {
    const a = Array.from({ length: 10_000 }, (_, i) => `a${i}`).join('\n');
    const b = Array.from({ length: 10_000 }, (_, i) => `b${i}`).join('\n');
    const t = performance.now();
    expect(diffstat(hunks(a, b))).toEqual({ added: 10_000, removed: 10_000 });
    expect(performance.now() - t).toBeLessThan(3_000);
  });
});
