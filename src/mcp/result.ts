import { randomBytes } from 'node:crypto';
import { assertNever } from '../core/index.js';
import type { AnyTool, Fence } from '../registry/index.js';
import type { CallOutcome } from './outcome.js';

/** A tool result in MCP shape. */
export interface CallResult {
  [key: string]: unknown;
  content: { type: 'text'; text: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

/** An answer framed for the wire: its text block and the byte counts the answer cap judges. */
export interface Framed {
  readonly text: string;
  /** Bytes of the text block the model reads. */
  readonly textBytes: number;
  /** The text block and the structuredContent JSON together: what the answer cap bounds. */
  readonly answerBytes: number;
}

const utf8 = (s: string, cap: number): number =>
  // A UTF-8 string is at most 3 bytes per UTF-16 unit, so a short answer needs no byte count unless it is recorded.
  s.length * 3 > cap ? Buffer.byteLength(s) : s.length;

/**
 * The text block the model reads for an answer (the tool's compact `render`), and its sizes: the one place a tool's
 * output becomes text. Built once per call, by invoke, so the answer cap and the audit measure the bytes actually
 * sent. The cap bounds the whole result: the text and the structuredContent JSON that rides beside it, together.
 */
export function frame(tool: AnyTool, value: Record<string, unknown>, cap: number, exact: boolean): Framed {
  const text = tool.render(value, freshFence());
  const textBytes = exact ? Buffer.byteLength(text) : utf8(text, cap);
  // An uncapped surface (the operator's) skips the JSON walk: nothing would be refused.
  const jsonBytes = Number.isFinite(cap) ? utf8(JSON.stringify(value), cap) : 0;
  // The whole result counts: both halves travel in one message (tools page each half within half the cap).
  return { text, textBytes, answerBytes: Number.isFinite(cap) ? textBytes + jsonBytes : textBytes };
}

/** A new boundary for one answer's untrusted text: 64 random bits, chosen after the text was read. */
export function freshFence(): Fence {
  return { nonce: randomBytes(8).toString('hex') };
}

/** The MCP tool result for an outcome: the one place outcomes become `isError` results. */
export function toCallResult(o: CallOutcome): CallResult {
  switch (o.kind) {
    case 'allow':
    case 'propose':
      return { content: [{ type: 'text', text: o.text }], structuredContent: o.value };
    case 'deny':
    case 'invisible':
    case 'missing':
    case 'error':
      return { content: [{ type: 'text', text: o.message }], isError: true };
    default:
      return assertNever(o, 'call outcome');
  }
}
