// The pure edit rule (issue 23 §3): exact text located in the content as it is, once or at an occurrence, no
// overlaps, no-op refused; and a property: whatever the edits, the result is either a refusal or exactly the content
// with each located span replaced.
import * as fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyEdits, MAX_COUNTED } from '../../src/core/index.js';

const apply = (text: string, edits: { old_text: string; new_text: string; occurrence?: number }[]) =>
  applyEdits('f.txt', text, edits);

describe('applyEdits', () => {
  it('replaces a unique match and keeps every other byte (CRLF, BOM)', () => {
    expect(apply('\ufeffa\r\nb\r\n', [{ old_text: 'b', new_text: 'c' }])).toEqual({
      ok: true,
      value: '\ufeffa\r\nc\r\n',
    });
  });

  it('refuses a missing, an ambiguous and an out-of-range match, naming the edit', () => {
    expect(apply('x x x', [{ old_text: 'y', new_text: '' }])).toMatchObject({ ok: false, code: 'not_found' });
    const amb = apply('x x x', [{ old_text: 'x', new_text: 'y' }]);
    expect(amb).toMatchObject({ ok: false, code: 'ambiguous' });
    expect(!amb.ok && amb.message).toContain('Edit 1 of "f.txt": old_text occurs 3 times');
    expect(apply('x x x', [{ old_text: 'x', new_text: 'y', occurrence: 4 }])).toMatchObject({
      ok: false,
      code: 'occurrence',
    });
  });

  it('counts occurrences left to right without overlap', () => {
    expect(apply('aaaa', [{ old_text: 'aa', new_text: 'b', occurrence: 2 }])).toEqual({ ok: true, value: 'aab' });
    expect(apply('aaa', [{ old_text: 'aa', new_text: 'b', occurrence: 2 }])).toMatchObject({ ok: false });
  });

  it('locates every edit in the original text, and refuses overlapping ones', () => {
    expect(
      apply('one two', [
        { old_text: 'one', new_text: 'two' },
        { old_text: 'two', new_text: 'three' },
      ]),
    ).toEqual({ ok: true, value: 'two three' });
    expect(
      apply('abcdef', [
        { old_text: 'abc', new_text: 'x' },
        { old_text: 'cde', new_text: 'y' },
      ]),
    ).toMatchObject({ ok: false, code: 'overlap' });
  });

  it('refuses edits that change nothing', () => {
    expect(apply('same', [{ old_text: 'same', new_text: 'same' }])).toMatchObject({ ok: false, code: 'unchanged' });
  });

  it('says "at least" past the counting bound', () => {
    const r = apply('a'.repeat(MAX_COUNTED + 5), [{ old_text: 'a', new_text: 'b' }]);
    expect(!r.ok && r.message).toContain(`at least ${MAX_COUNTED} times`);
  });

  it('a result is always the text with each located span replaced', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom('a', 'b', 'c', '\n'), maxLength: 40 }),
        fc.array(
          fc.record({
            old_text: fc.string({ unit: fc.constantFrom('a', 'b', 'c'), minLength: 1, maxLength: 3 }),
            new_text: fc.string({ unit: fc.constantFrom('x', 'y'), maxLength: 3 }),
            occurrence: fc.option(fc.integer({ min: 1, max: 4 }), { nil: undefined }),
          }),
          { minLength: 1, maxLength: 3 },
        ),
        (text, edits) => {
          const r = applyEdits('f', text, edits);
          if (!r.ok) return;
          // Replaying from the located offsets gives the same result, and old_text was really there.
          const spans = edits.map((e) => {
            let at = -1;
            for (let k = 0; k < (e.occurrence ?? 1); k++)
              at = text.indexOf(e.old_text, at < 0 ? 0 : at + e.old_text.length);
            expect(at).toBeGreaterThanOrEqual(0);
            return { at, e };
          });
          spans.sort((x, y) => x.at - y.at);
          let out = '';
          let from = 0;
          for (const s of spans) {
            out += text.slice(from, s.at) + s.e.new_text;
            from = s.at + s.e.old_text.length;
          }
          expect(r.value).toBe(out + text.slice(from));
        },
      ),
    );
  });
});
