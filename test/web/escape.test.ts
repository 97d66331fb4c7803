import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { escape, hasHidden, html, Html } from '../../src/http/web/escape.js';

describe('the one escaping helper', () => {
  it('no string ever produces a tag, an entity-free quote or a hidden character', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (s) => {
        const out = escape(s);
        expect(out).not.toMatch(/[<>"'`]/);
        expect(out.replace(/&(amp|lt|gt|quot|#39|#96);/g, '')).not.toContain('&');
        expect(hasHidden(out)).toBe(false);
      }),
    );
  });

  it('makes bidi overrides, zero-width characters, controls and lone surrogates visible', () => {
    expect(escape('evil\u202Etxt.exe')).toBe('evil⟨U+202E⟩txt.exe');
    expect(escape('a\u200Bb\u2066c\uFEFF\u0000\r')).toBe('a⟨U+200B⟩b⟨U+2066⟩c⟨U+FEFF⟩⟨U+0000⟩⟨U+000D⟩');
    expect(escape('\uD800')).toBe('⟨U+D800⟩');
    expect(escape('tab\tand\nnewline')).toBe('tab\tand\nnewline');
    expect(hasHidden('plain name.txt')).toBe(false);
    expect(hasHidden('name\u202E')).toBe(true);
  });

  it('templates escape every value, in text and attributes, unless it is markup built by a template', () => {
    const name = '"><script>alert(1)</script>';
    const out =
      html`<a title="${name}">${name}</a>${html`<b>${'&'}</b>`}${[1, '<i>', undefined, false, null]}`.toString();
    expect(out).toBe(
      '<a title="&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;">&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;</a><b>&amp;</b>1&lt;i&gt;',
    );
  });

  it('markup cannot be minted outside the template tag', () => {
    expect(() => new Html(Symbol('html') as never, '<script>')).toThrow();
  });
});
