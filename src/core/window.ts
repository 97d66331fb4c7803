// Line windows over text: whole lines only, so a long line is never split silently. Pure; no I/O.
import { fail, ok, type Result } from './result.js';

/** A requested window; 1-based, inclusive. Either bound may be absent (start of file / end of file). */
export interface LineWindowRequest {
  readonly start_line?: number | undefined;
  readonly end_line?: number | undefined;
}

/** The lines served and where they sit in the file. `content` is the exact text of those lines, terminators kept. */
export interface LineWindow {
  readonly content: string;
  readonly total_lines: number;
  readonly start_line: number;
  /** `start_line - 1` when the window is empty (an empty file). */
  readonly end_line: number;
}

/** True when the arguments ask for a window at all. */
export function wantsWindow(req: LineWindowRequest): boolean {
  return req.start_line !== undefined || req.end_line !== undefined;
}

/**
 * Offsets where each line starts. A line ends after `\n` (so `\r\n` stays with its line); a final line without a
 * terminator still counts, a trailing terminator does not open an empty last line.
 */
export function lineStarts(text: string): number[] {
  const starts: number[] = [];
  if (text.length === 0) return starts;
  starts.push(0);
  for (let i = text.indexOf('\n'); i !== -1 && i + 1 < text.length; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return starts;
}

/**
 * Cuts `text` to whole lines `start_line..end_line` (clamped at the end of the file). A start past the end, or an end
 * before the start, is refused with a message naming the file's line count, never an empty answer that could be
 * mistaken for an empty file.
 */
export function lineWindow(text: string, req: LineWindowRequest): Result<LineWindow, 'out_of_range'> {
  const starts = lineStarts(text);
  const total = starts.length;
  const start = req.start_line ?? 1;
  if (req.end_line !== undefined && req.end_line < start) {
    return fail('out_of_range', `end_line (${req.end_line}) is before start_line (${start}).`);
  }
  if (total === 0) {
    if (start === 1) return ok({ content: '', total_lines: 0, start_line: 1, end_line: 0 });
    return fail('out_of_range', `start_line ${start} is past the end of the file (0 lines).`);
  }
  if (start > total) return fail('out_of_range', `start_line ${start} is past the end of the file (${total} lines).`);
  const end = Math.min(req.end_line ?? total, total);
  const from = starts[start - 1] ?? 0;
  const to = end < total ? (starts[end] ?? text.length) : text.length;
  return ok({ content: text.slice(from, to), total_lines: total, start_line: start, end_line: end });
}
