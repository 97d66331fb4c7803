// Everything the CLI prints for a person passes through `clean`: commit messages, client names, branch names and
// paths are written by agents, and a raw ESC, CR or bidi override would let one repaint the operator's terminal
// (hide a line, fake a verdict, reverse a path). `--json` output goes through `jsonText`: the same JSON value, escaped.

// C0 and C1 controls, DEL, bidi embeddings/overrides/isolates and marks, line/paragraph separators, and the
// zero-width characters and BOM that can hide text inside a cell.
const UNSAFE = /[\p{Cc}\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/gu;
const UNSAFE_KEEP_LINES = /(?![\n\t])[\p{Cc}\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/gu;

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
const JSON_UNSAFE = /[\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/gu;

/** `JSON.stringify` for the terminal: the same value once parsed, with no raw control, bidi or invisible character. */
export function jsonText(value: unknown, indent?: number): string {
  return JSON.stringify(value, null, indent).replace(JSON_UNSAFE, (ch) => `\\u${(ch.codePointAt(0) ?? 0).toString(16).padStart(4, '0')}`);
}

/** Renders rows as left-aligned columns under a header, for people; `--json` is for scripts. Every cell is cleaned. */
export function table(headers: string[], rows: string[][]): string {
  const safe = rows.map((r) => r.map((c) => clean(c)));
  const widths = headers.map((h, i) => Math.max(h.length, ...safe.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join('  ').trimEnd();
  return [line(headers), ...safe.map(line)].join('\n');
}
