/**
 * What one file read becomes on a surface: the single place bytes from an upstream turn into what is served.
 * Adapters hand over raw bytes (so a BOM, CRLF or NUL is never decoded differently by two upstreams); this decides
 * text, base64 or a refusal, and whether a symlink may be shown at all.
 */
import { decodeUtf8 } from './binary.js';
import type { Scope } from './scope.js';
import { linkServable } from './symlink.js';

/** A successful upstream read, as the port returns it. */
export interface RawRead {
  readonly path: string;
  readonly size: number;
  readonly bytes: Uint8Array;
  /** A committed symlink: `bytes` is its target text, never the target file. */
  readonly symlink?: boolean;
}

/**
 * The outcome for one read. `missing` must be answered exactly like a path that does not exist. Binary content is
 * handed back as bytes for the caller to base64 with the platform's native encoder: a pure-JS encoder took ~0.3–0.7 s
 * of event loop for 5 MB (measured), time every other perimeter would wait.
 */
export type ServedRead =
  | { kind: 'text'; text: string; symlink: boolean }
  | { kind: 'base64'; bytes: Uint8Array; symlink: boolean }
  | { kind: 'refused'; message: string }
  | { kind: 'missing' };

/** How a surface serves content. */
export interface ServePolicy {
  readonly scope: Scope;
  /** Binary content is returned as base64 (the operator surface, or a perimeter with `allow_binary`). */
  readonly allowBinary: boolean;
  /** Symlinks are judged on their targets (agent surfaces); the operator surface sees every link as it is. */
  readonly judgeLinks: boolean;
}

/** Decodes a symlink's target text; undefined when it is not UTF-8 text (such a link is never served to agents). */
export function linkTargetOf(bytes: Uint8Array): string | undefined {
  return decodeUtf8(bytes);
}

/** Turns one read into what the surface receives: UTF-8 text byte for byte (BOM kept), base64, a refusal, or missing. */
export function serveRead(read: RawRead, policy: ServePolicy): ServedRead {
  const text = decodeUtf8(read.bytes);
  if (read.symlink) {
    if (policy.judgeLinks && (text === undefined || !linkServable(read.path, text, policy.scope)))
      return { kind: 'missing' };
    return text === undefined
      ? { kind: 'base64', bytes: read.bytes, symlink: true }
      : { kind: 'text', text, symlink: true };
  }
  if (text !== undefined) return { kind: 'text', text, symlink: false };
  if (policy.allowBinary) return { kind: 'base64', bytes: read.bytes, symlink: false };
  return {
    kind: 'refused',
    message: `"${read.path}" is a binary file (${read.size} bytes); this perimeter serves text only. Ask the operator to allow binary content if you need it.`,
  };
}
