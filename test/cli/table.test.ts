import { describe, expect, it } from 'vitest';
import { clean, jsonText, table } from '../../src/cli/table.js';

describe('clean', () => {
  it.each([
    ['ESC', 'a\u001b[31mb', 'a\\x1b[31mb'],
    ['CR', 'ok\rdeny', 'ok\\x0ddeny'],
    ['NUL and BEL', '\u0000\u0007', '\\x00\\x07'],
    ['DEL', 'a\u007fb', 'a\\x7fb'],
    ['C1 CSI', '\u009b2J', '\\x9b2J'],
    ['bidi override', 'txt\u202eexe', 'txt\\u{202e}exe'],
    ['bidi isolates', '\u2066x\u2069', '\\u{2066}x\\u{2069}'],
    ['zero-width and BOM', 'a\u200bb\ufeff', 'a\\u{200b}b\\u{feff}'],
    ['line separator', 'a\u2028b', 'a\\u{2028}b'],
    ['soft hyphen', 'pay\u00adpal', 'pay\\xadpal'],
    ['invisible Unicode tags', 'ok\u{e0069}\u{e0067}', 'ok\\u{e0069}\\u{e0067}'],
  ])('shows %s as a visible escape', (_n, raw, shown) => expect(clean(raw)).toBe(shown));

  it('keeps newlines and tabs only when asked, and leaves ordinary Unicode alone', () => {
    expect(clean('a\nb\tc')).toBe('a\\x0ab\\x09c');
    expect(clean('a\nb\tc\r', { lines: true })).toBe('a\nb\tc\\x0d');
    expect(clean('Grüße, 日本, émoji 🎉')).toBe('Grüße, 日本, émoji 🎉');
  });

  it('cleans every table cell before measuring it, so columns stay aligned', () => {
    const t = table(
      ['A', 'B'],
      [
        ['x\u001b[2K', 'y'],
        ['z', 'w'],
      ],
    ).split('\n');
    expect(t[1]).toBe('x\\x1b[2K  y');
    expect(t[2]).toBe('z         w');
  });

  it('jsonText is the same JSON value, with no raw DEL, C1 or bidi character', () => {
    const v = { m: 'a\u007f\u009b\u202e\u2066\u001b\u{e0041}' };
    const s = jsonText(v);
    expect(s).not.toMatch(/[\u007f-\u009f\u202e\u2066\u{e0041}]/u);
    expect(JSON.parse(s)).toEqual(v);
  });
});

describe('the server log', () => {
  it('writes agent-written fields with DEL, C1 and bidi characters escaped, as the same JSON', async () => {
    const { createLogger } = await import('../../src/cli/log.js');
    const lines: string[] = [];
    createLogger('info', (l) => lines.push(l))('warn', 'x', { client: 'a\u202eb\u009b' });
    expect(lines[0]).not.toMatch(/[\u009b\u202e]/u);
    expect(JSON.parse(lines[0] ?? '').client).toBe('a\u202eb\u009b');
  });
});
