// Everything the CLI prints for a person passes through `clean`: commit messages, client names, branch names and
// paths are written by agents, and a raw ESC, CR or bidi override would let one repaint the operator's terminal
// (hide a line, fake a verdict, reverse a path). `--json` output goes through `jsonText`: the same JSON value, escaped.

// C0 and C1 controls and DEL (Cc); every format character (Cf: bidi embeddings, overrides, isolates and marks,
// zero-width characters, the BOM, soft hyphen, invisible Unicode tags that can smuggle hidden text); line and
// paragraph separators; lone surrogates. An emoji joined with U+200D shows its joiner: legibility over looks.
const UNSAFE = /[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}]/gu;
const UNSAFE_KEEP_LINES = /(?![\n\t])[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}]/gu;

const escape = (ch: string): string => {
  const code = ch.codePointAt(0) ?? 0;
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u{${code.toString(16)}}`;
};

/**
 * Makes text safe for a terminal: every control, bidi or invisible formatting character is shown as a visible
 * escape (`\x1b`, `\u{202e}`), so nothing an agent wrote can move the cursor, recolour or reorder what follows.
 * `lines: true` keeps newlines and tabs (a commit message body); cells keep neither.
 */
export function clean(text: string, opts: { lines?: boolean } = {}): string {
  return text.replace(opts.lines ? UNSAFE_KEEP_LINES : UNSAFE, escape);
}

// JSON.stringify escapes C0 but leaves DEL, C1 and bidi characters raw; as \uXXXX escapes they parse back the same.
const JSON_UNSAFE = /[\u007f-\u009f\p{Cf}\p{Zl}\p{Zp}]/gu;

/** `JSON.stringify` for the terminal: the same value once parsed, with no raw control, bidi or invisible character. */
export function jsonText(value: unknown, indent?: number): string {
  // Astral characters (Unicode tags) are written as their two UTF-16 escapes, as JSON requires.
  const units = (ch: string) =>
    Array.from({ length: ch.length }, (_, i) => `\\u${ch.charCodeAt(i).toString(16).padStart(4, '0')}`).join('');
  return JSON.stringify(value, null, indent).replace(JSON_UNSAFE, units);
}

/** Renders rows as left-aligned columns under a header, for people; `--json` is for scripts. Every cell is cleaned. */
export function table(headers: string[], rows: string[][]): string {
  const safe = rows.map((r) => r.map((c) => clean(c)));
  const widths = headers.map((h, i) => Math.max(h.length, ...safe.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd();
  return [line(headers), ...safe.map(line)].join('\n');
}
