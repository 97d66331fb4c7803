// The line scanner of the GitHub search index. Written as one self-contained function (no imports, no closures) so
// the same source runs in this thread for literal patterns and, through `toString()`, inside a worker for regular
// expressions, where a catastrophic pattern can be killed without stalling the event loop.

/** A match as the scanner reports it; the adapter adds the path. */
export interface ScanHit {
  readonly file: number;
  readonly line: number;
  readonly column: number;
  readonly text: string;
  readonly textColumn: number;
}

/**
 * First match on each line of each text, in order, stopping after `max` hits. `source`/`flags` build the RegExp
 * (`g` is added). Lines are split on `\n` like git grep. `perLine` runs the expression on each line alone (regular
 * expressions, which could otherwise match across lines); without it the whole text is searched and each hit skips
 * to the next line (literals, which never contain a line break). `window` characters are kept on each side.
 */
export function scanTexts(
  texts: readonly string[],
  source: string,
  flags: string,
  perLine: boolean,
  max: number,
  window: number,
): ScanHit[] {
  const hits: ScanHit[] = [];
  const re = new RegExp(source, flags.includes('g') ? flags : `${flags}g`);
  for (let f = 0; f < texts.length && hits.length < max; f++) {
    const text = texts[f] as string;
    let lineNo = 1;
    let counted = 0;
    let pos = 0;
    while (pos <= text.length && hits.length < max) {
      let lineStart: number;
      let index: number;
      let line: string;
      if (perLine) {
        if (pos === text.length && pos > 0) break;
        let end = text.indexOf('\n', pos);
        if (end === -1) end = text.length;
        line = text.slice(pos, end);
        re.lastIndex = 0;
        const m = re.exec(line);
        lineStart = pos;
        pos = end + 1;
        if (!m) {
          lineNo += 1;
          continue;
        }
        index = m.index;
      } else {
        re.lastIndex = pos;
        const m = re.exec(text);
        if (!m) break;
        for (let i = text.indexOf('\n', counted); i !== -1 && i < m.index; i = text.indexOf('\n', i + 1)) lineNo += 1;
        lineStart = text.lastIndexOf('\n', m.index - 1) + 1;
        let end = text.indexOf('\n', m.index);
        if (end === -1) end = text.length;
        line = text.slice(lineStart, end);
        index = m.index - lineStart;
        counted = end;
        pos = end + 1;
      }
      const from = Math.max(0, index - window);
      hits.push({
        file: f,
        line: lineNo,
        column: index + 1,
        text: line.slice(from, index + window),
        textColumn: from + 1,
      });
      if (perLine) lineNo += 1;
      else {
        lineNo += 1;
        counted = pos;
      }
    }
  }
  return hits;
}
