// "Did you mean": the known word closest to a mistyped one, for config keys (`reads` → `read`).

/** Levenshtein distance between two short strings (keys, flags). */
function distance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(
        (prev[j] ?? 0) + 1,
        (row[j - 1] ?? 0) + 1,
        (prev[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    }
    prev = row;
  }
  return prev[b.length] ?? 0;
}

/**
 * The candidate nearest to `word` (case-insensitive), if near enough to be a typo: at most a third of the word's
 * length in edits (at least one); ties go to the earlier candidate. Undefined when nothing is that close.
 */
export function closest(word: string, candidates: readonly string[]): string | undefined {
  const w = word.toLowerCase();
  const limit = Math.max(1, Math.floor(w.length / 3));
  let best: { name: string; d: number } | undefined;
  for (const c of candidates) {
    const d = distance(w, c.toLowerCase());
    if (d <= limit && (best === undefined || d < best.d)) best = { name: c, d };
  }
  return best?.name;
}
