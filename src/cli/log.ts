import type { Log } from '../registry/index.js';
import { jsonText } from './table.js';

export type Level = 'debug' | 'info' | 'warn' | 'error';
const ORDER: Record<Level, number> = { debug: 10, info: 20, warn: 30, error: 40 };

/** JSON lines on stderr (stdout is for command output and, for `stdio`, protocol only). */
export function createLogger(level: Level, write: (line: string) => void = (l) => process.stderr.write(l)): Log {
  return (lvl, msg, fields) => {
    if (ORDER[lvl] < ORDER[level]) return;
    // Fields carry agent-written names and paths: no raw DEL, C1 or bidi character reaches the operator's terminal.
    write(`${jsonText({ time: new Date().toISOString(), level: lvl, msg, ...fields })}\n`);
  };
}

export function isLevel(v: string): v is Level {
  return v in ORDER;
}
