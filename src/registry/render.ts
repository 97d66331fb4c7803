// Pieces of the text block a model reads (each tool's `render`): compact, line-oriented, and never larger than the
// raw git output carrying the same information. Pure functions of a tool's filtered value: a rendering can only
// repeat what `structuredContent` already shows, so it opens no channel of its own.

// A field that would break its line (a control character) or be misread (a quote, a backslash, edge spaces) is
// printed as a JSON string, as git's core.quotePath does for paths; everything else is printed as it is.
function needsQuotes(s: string): boolean {
  if (s === '' || /^\s|\s$/.test(s)) return true;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c === 0x7f || c === 0x22 || c === 0x5c || c === 0x2028 || c === 0x2029) return true;
  }
  return false;
}

/** One field on one line: as is, or JSON-quoted when it could break or fake a line. */
export function field(s: string): string {
  return needsQuotes(s) ? JSON.stringify(s) : s;
}

/** A commit message's first line (its subject), quoted when it carries control characters. */
export function subjectOf(message: string): string {
  const nl = message.indexOf('\n');
  const first = (nl === -1 ? message : message.slice(0, nl)).replace(/\r$/, '');
  return first === '' ? '' : field(first);
}

/** `name <email>` of a person, each part kept on its line. */
export function personOf(p: { readonly name: string; readonly email: string }): string {
  return `${field(p.name)} <${field(p.email)}>`;
}

/** One commit as one line: `sha date author subject` (root surfaces add the parents after the sha). */
export function commitLine(c: {
  readonly sha: string;
  readonly message: string;
  readonly author: { readonly name: string; readonly email: string; readonly date: string };
  readonly parents?: readonly string[] | undefined;
}): string {
  const parents = c.parents === undefined ? '' : ` (parents ${c.parents.length ? c.parents.join(',') : 'none'})`;
  return `${c.sha}${parents} ${c.author.date} ${personOf(c.author)} ${subjectOf(c.message)}`;
}

/** A status as one letter, the way `git diff --name-status` prints it; an unknown word is printed whole. */
export function statusLetter(status: string): string {
  switch (status) {
    case 'added':
      return 'A';
    case 'modified':
      return 'M';
    case 'removed':
    case 'deleted':
      return 'D';
    case 'renamed':
      return 'R';
    case 'copied':
      return 'C';
    case 'changed':
      return 'T';
    case 'unchanged':
      return 'U';
    default:
      return field(status);
  }
}

/** A changed file's header line, then its patch (hunks) ending in a newline. */
export function fileChangeText(f: {
  readonly path: string;
  readonly status: string;
  readonly previous_path?: string | undefined;
  readonly additions: number;
  readonly deletions: number;
  readonly patch?: string | undefined;
}): string {
  const name = f.previous_path === undefined ? field(f.path) : `${field(f.previous_path)} -> ${field(f.path)}`;
  const head = `${statusLetter(f.status)} ${name} +${f.additions} -${f.deletions}\n`;
  if (f.patch === undefined || f.patch === '') return head;
  return head + (f.patch.endsWith('\n') ? f.patch : `${f.patch}\n`);
}

/** The line that tells a paged answer has more, and how to ask for it. */
export const moreLine = (arg: string, next: number): string => `truncated: more with ${arg}: ${next}\n`;

/**
 * The per-answer boundary around text written by people or agents (commit messages, PR titles and bodies, comments,
 * check output): a random nonce chosen after the text was read, so no text can contain the closing line. Chosen by
 * the mcp layer for each answer (a render stays a pure function of its value and this fence).
 */
export interface Fence {
  /** 16 or more hex digits, fresh for each answer. */
  readonly nonce: string;
}

/** `text` as data: between `<untrusted-NONCE>` and `</untrusted-NONCE>` lines, each on its own line. */
export function untrusted(fence: Fence, text: string): string {
  const body = text.endsWith('\n') ? text : `${text}\n`;
  return `<untrusted-${fence.nonce}>\n${body}</untrusted-${fence.nonce}>\n`;
}
