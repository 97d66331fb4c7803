import { assertNever } from '../core/index.js';
import type { AnyTool } from '../registry/index.js';
import type { CallOutcome } from './outcome.js';

/** A tool result in MCP shape. */
export interface CallResult {
  [key: string]: unknown;
  content: { type: 'text'; text: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

/**
 * The text block the model reads for an answer: the one place a tool's output becomes text (a tool-level `render`
 * plugs in here). Built once per call, by invoke, so the answer cap and the audit measure the bytes actually sent.
 */
export function frameText(_tool: AnyTool, value: Record<string, unknown>): string {
  return JSON.stringify(value);
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
