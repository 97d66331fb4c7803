import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { lineStarts, lineWindow, wantsWindow } from '../../src/core/window.js';

const win = (text: string, start?: number, end?: number) => lineWindow(text, { start_line: start, end_line: end });

describe('lineWindow', () => {
  const text = 'one\ntwo\r\nthree\nfour';
  it('serves whole lines with their terminators, clamped at the end', () => {
    expect(win(text, 2, 3)).toEqual({
      ok: true,
      value: { content: 'two\r\nthree\n', total_lines: 4, start_line: 2, end_line: 3 },
    });
    expect(win(text, 4)).toEqual({ ok: true, value: { content: 'four', total_lines: 4, start_line: 4, end_line: 4 } });
    expect(win(text, 3, 99)).toEqual({
      ok: true,
      value: { content: 'three\nfour', total_lines: 4, start_line: 3, end_line: 4 },
    });
    expect(win(text, undefined, 1)).toEqual({
      ok: true,
      value: { content: 'one\n', total_lines: 4, start_line: 1, end_line: 1 },
    });
  });
  it('does not count a trailing newline as an extra line', () => {
    expect(lineStarts('a\nb\n')).toEqual([0, 2]);
    expect(win('a\nb\n', 2)).toEqual({
      ok: true,
      value: { content: 'b\n', total_lines: 2, start_line: 2, end_line: 2 },
    });
  });
  it('keeps a very long line whole', () => {
    const long = 'x'.repeat(1_000_000);
    const r = win(`a\n${long}\nb\n`, 2, 2);
    expect(r.ok && r.value.content).toBe(`${long}\n`);
  });
  it('refuses a start past the end and an end before the start, naming the line count', () => {
    expect(win(text, 5)).toEqual({
      ok: false,
      code: 'out_of_range',
      message: 'start_line 5 is past the end of the file (4 lines).',
    });
    expect(win(text, 3, 2)).toEqual({
      ok: false,
      code: 'out_of_range',
      message: 'end_line (2) is before start_line (3).',
    });
    expect(win('', 2).ok).toBe(false);
  });
  it('reads an empty file as zero lines', () => {
    expect(win('', 1)).toEqual({ ok: true, value: { content: '', total_lines: 0, start_line: 1, end_line: 0 } });
  });
  it('knows when a window is asked for', () => {
    expect(wantsWindow({})).toBe(false);
    expect(wantsWindow({ end_line: 3 })).toBe(true);
  });
  it('windows concatenate back to the file (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom('a', 'b', '\n', '\r', 'é')).map((a) => a.join('')),
        fc.nat(6),
        (t, cut) => {
          const total = lineStarts(t).length;
          if (total === 0) return;
          const k = Math.min(total, cut + 1);
          const a = win(t, 1, k);
          const b = k < total ? win(t, k + 1) : undefined;
          expect(a.ok).toBe(true);
          const joined = (a.ok ? a.value.content : '') + (b && b.ok ? b.value.content : '');
          expect(joined).toBe(t);
          expect(t.split('\n').length - (t.endsWith('\n') ? 1 : 0)).toBe(total);
        },
      ),
    );
  });
});
