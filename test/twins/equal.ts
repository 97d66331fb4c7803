// The twin check's comparison: two answers are equal when their bytes are, once the ids that hash hidden content are
// mapped. Commit ids hash the whole tree (SPEC §4.11's accepted exception), so each twin's commit ids are mapped to
// the visible commit they stand for (a label the generator gives both twins) before the bytes are compared; nothing
// else may differ.
import { unfence } from '../support/fence.js';

/** One answer as the agent saw it. */
export interface Answer {
  readonly isError: boolean;
  readonly text: string;
  readonly structured: unknown;
}

/** Maps each twin's commit ids to a shared label; abbreviated forms (≥ 7 hex digits, as answers print them) too. */
export class IdMap {
  private readonly labels = new Map<string, string>();
  private readonly tokens = new Map<string, string>();

  /** Records that `id` (a full 40-hex commit id in one twin) stands for the visible commit `label`. */
  add(id: string, label: string): void {
    if (!/^[0-9a-f]{40}$/.test(id)) throw new Error(`IdMap.add: not a full commit id: ${id}`);
    const had = this.labels.get(id);
    if (had !== undefined && had !== label) throw new Error(`IdMap.add: ${id} already stands for ${had}, not ${label}`);
    this.labels.set(id, label);
  }

  /**
   * Records an opaque token (a sealed cursor, a proposal id or hash, a repository path) that stands for `label`:
   * tokens that seal a commit id or are random per server are paired by where they appear, and then compared by effect.
   */
  addToken(token: string, label: string): void {
    if (token.length < 4) throw new Error(`IdMap.addToken: token too short to replace safely: ${token}`);
    const had = this.tokens.get(token);
    if (had !== undefined && had !== label)
      throw new Error(`IdMap.addToken: ${token} already stands for ${had}, not ${label}`);
    this.tokens.set(token, label);
  }

  /** The label a token was recorded with, if any. */
  tokenLabel(token: string): string | undefined {
    return this.tokens.get(token);
  }

  /** The text with every known token replaced, then every known id, full or abbreviated (7 to 39 leading hex digits), by `<label>`. */
  map(text: string): string {
    // Longest tokens first, so a token that contains another is replaced whole.
    for (const [token, label] of [...this.tokens].sort(([x], [y]) => y.length - x.length))
      text = text.split(token).join(`<${label}>`);
    if (this.labels.size === 0) return text;
    return text.replace(/\b[0-9a-f]{7,40}\b/g, (hex) => {
      for (const [id, label] of this.labels) if (id.startsWith(hex)) return `<${label}>`;
      return hex;
    });
  }

  get size(): number {
    return this.labels.size;
  }
}

/** The whole answer as one string, key order included (it is a channel too), fences and ids mapped. */
export function canonical(a: Answer, ids: IdMap): string {
  return JSON.stringify(mapDeep({ isError: a.isError, text: unfence(a.text), structured: a.structured ?? null }, ids));
}

// Ids are mapped in each string as the agent reads it, not in its JSON escaping: there `\n` + an id reads as `n` + hex
// and the id's word boundary is lost.
function mapDeep(v: unknown, ids: IdMap): unknown {
  if (typeof v === 'string') return ids.map(v);
  if (Array.isArray(v)) return v.map((x) => mapDeep(x, ids));
  if (v !== null && typeof v === 'object')
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [ids.map(k), mapDeep(x, ids)]));
  return v;
}

/** Undefined when the two answers are byte-identical after mapping; otherwise a short description of the first difference. */
export function diffAnswers(a: Answer, b: Answer, idsA: IdMap, idsB: IdMap): string | undefined {
  const ca = canonical(a, idsA);
  const cb = canonical(b, idsB);
  if (ca === cb) return undefined;
  let i = 0;
  while (i < ca.length && ca[i] === cb[i]) i++;
  const from = Math.max(0, i - 80);
  return `answers differ at byte ${i}:\n  A: …${ca.slice(from, i + 120)}\n  B: …${cb.slice(from, i + 120)}`;
}
