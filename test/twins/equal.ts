// The twin check's comparison: two answers are equal when their bytes are, once the ids that hash hidden content are
// mapped. Commit ids hash the whole tree (SPEC §4.11's accepted exception), so each twin's commit ids are mapped to
// the visible commit they stand for (a label the generator gives both twins) before the bytes are compared; nothing
// else may differ.

/** One answer as the agent saw it. */
export interface Answer {
  readonly isError: boolean;
  readonly text: string;
  readonly structured: unknown;
}

/** Maps each twin's commit ids to a shared label; abbreviated forms (≥ 7 hex digits, as answers print them) too. */
export class IdMap {
  private readonly labels = new Map<string, string>();

  /** Records that `id` (a full 40-hex commit id in one twin) stands for the visible commit `label`. */
  add(id: string, label: string): void {
    if (!/^[0-9a-f]{40}$/.test(id)) throw new Error(`IdMap.add: not a full commit id: ${id}`);
    const had = this.labels.get(id);
    if (had !== undefined && had !== label) throw new Error(`IdMap.add: ${id} already stands for ${had}, not ${label}`);
    this.labels.set(id, label);
  }

  /** The text with every known id, full or abbreviated (7 to 39 leading hex digits), replaced by `<label>`. */
  map(text: string): string {
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

/** The whole answer as one string, key order included (it is a channel too), ids mapped. */
export function canonical(a: Answer, ids: IdMap): string {
  return ids.map(JSON.stringify({ isError: a.isError, text: a.text, structured: a.structured ?? null }));
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
