// Diff markup with bounds: a page never carries more than a fixed number of diff lines, whatever the agent sent.
// Every line and name goes through `html` (so through `escape`); a 10,000-line file is paged, never inlined.
import { html, segment, type Html } from './escape.js';
import type { FileDiff } from './filediffs.js';
import type { DiffLine } from './linediff.js';

/** Diff lines of one file shown on the proposal page. */
export const INLINE_LINES = 400;
/** Files whose diffs the proposal page shows inline; the rest are one link each in the diffstat. */
export const INLINE_FILES = 20;
/** Diff lines on one page of the file view. */
export const PAGE_LINES = 1_000;
/** Characters of one line shown on the proposal page (a minified file is one huge line); the file view shows all. */
export const INLINE_LINE_CHARS = 1_000;

const CLASS: Record<DiffLine['kind'], string> = { hunk: 'l hunk', same: 'l', add: 'l add', del: 'l del' };
const SIGN: Record<DiffLine['kind'], string> = { hunk: '', same: ' ', add: '+', del: '-' };

/** The lines `[from, from + count)` of a file's diff, each cut at `maxChars` when given (with a visible note). */
export function diffLines(lines: readonly DiffLine[], from: number, count: number, maxChars?: number): Html {
  const text = (t: string) =>
    maxChars === undefined || t.length <= maxChars
      ? t
      : html`${t.slice(0, maxChars)}<span class="cut"> … ${t.length - maxChars} more characters in the file view</span>`;
  return html`<pre class="diff">${lines.slice(from, from + count).map((l) => html`<span class="${CLASS[l.kind]}">${SIGN[l.kind]}${text(l.text)}</span>`)}</pre>`;
}

const fileUrl = (id: string, n: number, from: number) => `/ui/proposals/${segment(id)}/files/${n}?from=${from}`;

/** One file's box on the proposal page: notes, then at most INLINE_LINES lines and a link to the rest. */
export function fileBox(id: string, n: number, f: FileDiff): Html {
  const lines = f.lines ?? [];
  const more = lines.length - INLINE_LINES;
  return html`<section class="file" id="f${n}"><h3>${f.from === undefined ? undefined : html`<code>${f.from}</code> → `}<code>${f.path}</code> <span class="muted">${f.change}, +${f.added} −${f.removed}</span>${f.flag === undefined ? undefined : html` <span class="flag bad">${f.flag}</span>`}</h3>
${f.notes.map((note) => html`<p class="more">${note}</p>`)}
${f.lines ? diffLines(lines, 0, INLINE_LINES, INLINE_LINE_CHARS) : undefined}
${more > 0 ? html`<p class="more">${more} more diff lines not shown here. <a href="${fileUrl(id, n, INLINE_LINES)}">Show lines ${INLINE_LINES + 1}–${Math.min(lines.length, INLINE_LINES + PAGE_LINES)} of ${lines.length}</a></p>` : undefined}
${more <= 0 && lines.some((l) => l.text.length > INLINE_LINE_CHARS) ? html`<p class="more"><a href="${fileUrl(id, n, 0)}">Show the long lines whole</a></p>` : undefined}
</section>`;
}

/** The file view: one page of PAGE_LINES lines with links to the pages around it. */
export function filePage(id: string, n: number, f: FileDiff, from: number): Html {
  const lines = f.lines ?? [];
  const start = Math.max(0, Math.min(from, Math.max(0, lines.length - 1)));
  const prev =
    start > 0
      ? html`<a href="${fileUrl(id, n, Math.max(0, start - PAGE_LINES))}">previous ${PAGE_LINES}</a>`
      : undefined;
  const next =
    start + PAGE_LINES < lines.length
      ? html`<a href="${fileUrl(id, n, start + PAGE_LINES)}">next ${PAGE_LINES}</a>`
      : undefined;
  return html`<p><a href="/ui/proposals/${segment(id)}#f${n}">back to the proposal</a></p>
<section class="file"><h3><code>${f.path}</code> <span class="muted">${f.change}, +${f.added} −${f.removed}; diff lines ${lines.length === 0 ? 0 : start + 1}–${Math.min(lines.length, start + PAGE_LINES)} of ${lines.length}</span></h3>
${f.notes.map((note) => html`<p class="more">${note}</p>`)}
${f.lines ? diffLines(lines, start, PAGE_LINES) : undefined}
<p class="more">${prev} ${next}</p></section>`;
}

/** The diffstat table: every file, linked to its box (or to its file view past INLINE_FILES). */
export function diffstatTable(id: string, files: readonly FileDiff[]): Html {
  const total = files.reduce((a, f) => ({ added: a.added + f.added, removed: a.removed + f.removed }), {
    added: 0,
    removed: 0,
  });
  return html`<table class="diffstat"><thead><tr><th>File</th><th>Change</th><th>Lines</th><th>Notes</th></tr></thead><tbody>
${files.map(
  (
    f,
    n,
  ) => html`<tr><td><a href="${n < INLINE_FILES ? `#f${n}` : fileUrl(id, n, 0)}">${f.from === undefined ? undefined : html`<code class="from">${f.from}</code> → `}<code class="path">${f.path}</code></a></td><td>${f.change}</td>
<td><span class="ok">+${f.added}</span> <span class="bad">−${f.removed}</span></td><td>${f.flag === undefined ? undefined : html`<span class="flag bad">${f.flag}</span>`}${f.symlinkChange ? html`<span class="flag bad">symlink → file</span>` : undefined}${f.lines || f.change === 'touched' ? undefined : html`<span class="flag">binary</span>`}</td></tr>`,
)}
</tbody><tfoot><tr><th>${files.length} files</th><th></th><th><span class="ok">+${total.added}</span> <span class="bad">−${total.removed}</span></th><th></th></tr></tfoot></table>`;
}
