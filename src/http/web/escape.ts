// The one escaping helper of the HTML room. Every value that reaches a page goes through `escape`, in text and in
// attribute context alike (it escapes both quotes, so one function is safe in both), and `html` applies it to every
// interpolation that is not already markup. Nothing else in src/http/web builds markup from strings.

const MINT: unique symbol = Symbol('html');

/** Markup this room built itself; the only values `html` interpolates without escaping. */
export class Html {
  readonly #markup: string;
  // The token is private to this module: only `html` can make an Html, so every Html is escaped all the way down.
  constructor(token: typeof MINT, markup: string) {
    if (token !== MINT) throw new Error('Html is built by the html template tag only');
    this.#markup = markup;
  }
  toString(): string {
    return this.#markup;
  }
}

/** What a template may interpolate: markup, text, numbers, lists of these; absent values render as nothing. */
export type Part = Html | string | number | readonly Part[] | undefined | null | false;

// Characters a reader cannot see or that reorder what they see: controls (but tab and newline), format characters
// (bidi overrides and isolates, zero-width marks, BOM, soft hyphen), line/paragraph separators, private use, lone
// surrogates and noncharacters. Each becomes a visible ⟨U+XXXX⟩ marker, so `evil\u202Etxt.exe` cannot pose as `exe.txt`.
const HIDDEN_CLASS = '[\\p{Cc}\\p{Cf}\\p{Zl}\\p{Zp}\\p{Co}\\p{Cs}\\p{Noncharacter_Code_Point}]';
const HIDDEN = new RegExp(HIDDEN_CLASS, 'gu');
const ONE_HIDDEN = new RegExp(HIDDEN_CLASS, 'u');
const ENTITIES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
  '`': '&#96;',
};

/** The visible marker of one hidden character, e.g. ⟨U+202E⟩. */
export function marker(ch: string): string {
  return `⟨U+${(ch.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}⟩`;
}

/** True when `s` holds a character `escape` would replace by a marker (a risk flag for file names). */
export function hasHidden(s: string): boolean {
  return ONE_HIDDEN.test(s.replace(/[\t\n]/g, ''));
}

/** Escapes text for HTML text and quoted-attribute contexts, with hidden characters made visible. */
export function escape(s: string): string {
  return s
    .replace(HIDDEN, (ch) => (ch === '\t' || ch === '\n' ? ch : marker(ch)))
    .replace(/[&<>"'`]/g, (ch) => ENTITIES[ch] ?? ch);
}

const render = (p: Part): string => {
  if (p === undefined || p === null || p === false) return '';
  if (p instanceof Html) return p.toString();
  if (typeof p === 'number') return escape(String(p));
  if (typeof p === 'string') return escape(p);
  return p.map(render).join('');
};

/** Template tag: literal parts are markup written here; every interpolated value is escaped unless it is Html. */
export function html(strings: TemplateStringsArray, ...values: readonly Part[]): Html {
  let out = strings[0] ?? '';
  values.forEach((v, i) => {
    out += render(v) + (strings[i + 1] ?? '');
  });
  return new Html(MINT, out);
}

/** A path segment for a URL we build (ids, file numbers), escaped by `html` when interpolated. */
export function segment(s: string | number): string {
  return encodeURIComponent(String(s));
}
