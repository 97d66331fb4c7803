// A line diff for the approval page: what a proposed file does to the file at the proposal's base. Pure.
// Myers' O(ND) algorithm on what is left after the common head and tail are cut; past a budget of differences it
// stops looking for a minimal script and shows the rest as removed-then-added, which is still exact, only longer.

/** One line of a file diff. `hunk` lines carry the `@@ -a,b +c,d @@` header. */
export type DiffLine =
  | { readonly kind: 'hunk'; readonly text: string }
  | { readonly kind: 'same'; readonly text: string }
  | { readonly kind: 'add'; readonly text: string }
  | { readonly kind: 'del'; readonly text: string };

type Edit = { readonly kind: 'same' | 'add' | 'del'; readonly text: string };

/** Splits text into lines without their `\n` (a final newline does not make an empty last line). */
export function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** The edit script from `a` to `b`; `maxD` bounds the search (and its memory, ~maxD² entries). */
export function editScript(a: readonly string[], b: readonly string[], maxD = 1_000): Edit[] {
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const midA = a.slice(head, a.length - tail);
  const midB = b.slice(head, b.length - tail);
  const same = (lines: readonly string[]): Edit[] => lines.map((text) => ({ kind: 'same', text }));
  return [...same(a.slice(0, head)), ...myers(midA, midB, maxD), ...same(a.slice(a.length - tail))];
}

function myers(a: readonly string[], b: readonly string[], maxD: number): Edit[] {
  const n = a.length;
  const m = b.length;
  const whole = (): Edit[] => [
    ...a.map((text): Edit => ({ kind: 'del', text })),
    ...b.map((text): Edit => ({ kind: 'add', text })),
  ];
  if (n === 0 || m === 0) return whole();
  const limit = Math.min(n + m, maxD);
  const off = limit + 1;
  let v = new Int32Array(2 * limit + 3);
  const trace: Int32Array[] = [];
  for (let d = 0; d <= limit; d++) {
    trace.push(v.slice());
    const next = v.slice();
    for (let k = -d; k <= d; k += 2) {
      let x =
        k === -d || (k !== d && (v[off + k - 1] ?? 0) < (v[off + k + 1] ?? 0))
          ? (v[off + k + 1] ?? 0)
          : (v[off + k - 1] ?? 0) + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      next[off + k] = x;
      if (x >= n && y >= m) return backtrack(trace, a, b, off, d, k);
    }
    v = next;
  }
  return whole();
}

function backtrack(
  trace: readonly Int32Array[],
  a: readonly string[],
  b: readonly string[],
  off: number,
  dEnd: number,
  kEnd: number,
): Edit[] {
  const out: Edit[] = [];
  let x = a.length;
  let y = b.length;
  let k = kEnd;
  for (let d = dEnd; d > 0; d--) {
    const v = trace[d] as Int32Array;
    const down = k === -d || (k !== d && (v[off + k - 1] ?? 0) < (v[off + k + 1] ?? 0));
    const prevK = down ? k + 1 : k - 1;
    const prevX = v[off + prevK] ?? 0;
    const prevY = prevX - prevK;
    while (x > prevX && y > prevY) {
      y--;
      out.push({ kind: 'same', text: a[--x] as string });
    }
    if (down) out.push({ kind: 'add', text: b[--y] as string });
    else out.push({ kind: 'del', text: a[--x] as string });
    k = prevK;
  }
  while (x > 0 && y > 0) {
    y--;
    out.push({ kind: 'same', text: a[--x] as string });
  }
  return out.reverse();
}

/** The diff of two texts as hunks with `context` unchanged lines around each change (like `git diff -U3`). */
export function hunks(before: string, after: string, context = 3): DiffLine[] {
  const edits = editScript(splitLines(before), splitLines(after));
  const changed = edits.map((e) => e.kind !== 'same');
  const keep = edits.map((_, i) => {
    for (let j = Math.max(0, i - context); j <= Math.min(edits.length - 1, i + context); j++)
      if (changed[j]) return true;
    return false;
  });
  const out: DiffLine[] = [];
  let oldNo = 1;
  let newNo = 1;
  let i = 0;
  while (i < edits.length) {
    if (!keep[i]) {
      const e = edits[i] as Edit;
      if (e.kind !== 'add') oldNo++;
      if (e.kind !== 'del') newNo++;
      i++;
      continue;
    }
    const start = i;
    let oldLen = 0;
    let newLen = 0;
    while (i < edits.length && keep[i]) {
      const e = edits[i] as Edit;
      if (e.kind !== 'add') oldLen++;
      if (e.kind !== 'del') newLen++;
      i++;
    }
    const at = (no: number, len: number) => `${len === 0 ? no - 1 : no},${len}`;
    out.push({ kind: 'hunk', text: `@@ -${at(oldNo, oldLen)} +${at(newNo, newLen)} @@` });
    for (const e of edits.slice(start, i)) out.push(e);
    oldNo += oldLen;
    newNo += newLen;
  }
  return out;
}

/** Lines added and removed in a diff. */
export function diffstat(lines: readonly DiffLine[]): { added: number; removed: number } {
  let added = 0;
  let removed = 0;
  for (const l of lines) {
    if (l.kind === 'add') added++;
    else if (l.kind === 'del') removed++;
  }
  return { added, removed };
}
