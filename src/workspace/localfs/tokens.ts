// `-z` listings read token by token as git prints them, with no output cap. A listing of a whole working tree holds
// records of paths a caller may not show; an output cap on git's bytes would let those records decide where the answer
// is cut. Reading them as they arrive lets the caller keep what it wants and count its own cap on what it kept.
import { neutralised } from '../../gitcli/repo-config.js';
import { streamGit } from '../../gitcli/stream.js';
import { refused, wsFail, wsOk } from './errors.js';
import { baseCall, type WtContext } from './git.js';
import type { WsResult } from '../types.js';

/** How a token listing ended: git's exit code, or `stopped` when the consumer asked to stop early. */
export type TokensEnd =
  { readonly kind: 'exit'; readonly code: number; readonly stderr: string } | { readonly kind: 'stopped' };

/**
 * Runs `git <args>` (configuration neutralised, time-bounded) and hands each NUL-terminated token to `onToken` as raw
 * bytes; a last token without its NUL (the process died mid-record) is never handed on. `onToken` returns false to stop.
 */
export async function gitTokens(
  ctx: WtContext,
  args: readonly string[],
  doing: string,
  onToken: (token: Buffer) => boolean,
): Promise<WsResult<TokensEnd>> {
  const call = await neutralised(baseCall(ctx));
  if (!call) return refused(doing);
  let pending: Buffer = Buffer.alloc(0);
  const end = await streamGit(args, {
    ...call,
    timeoutMs: ctx.timeoutMs,
    onData: (chunk) => {
      let buf = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
      for (let nul = buf.indexOf(0); nul >= 0; nul = buf.indexOf(0)) {
        if (!onToken(buf.subarray(0, nul))) return false;
        buf = buf.subarray(nul + 1);
      }
      // Copied: the chunk's memory is reused by the stream.
      pending = Buffer.from(buf);
      return true;
    },
  });
  switch (end.kind) {
    case 'exit':
      if (end.code !== 0)
        ctx.log('warn', `git failed while ${doing}`, { code: end.code, stderr: end.stderr.slice(0, 2000) });
      return wsOk({ kind: 'exit', code: end.code, stderr: end.stderr });
    case 'stopped':
      return wsOk({ kind: 'stopped' });
    case 'timeout':
      return wsFail('timeout', `git took too long while ${doing}.`);
    case 'spawn_error':
      return end.missing
        ? wsFail('unavailable', 'git is not installed or not on PATH.')
        : wsFail('unavailable', `git failed while ${doing}; try again later.`);
    default: {
      const never: never = end;
      throw new Error(`unknown stream end ${JSON.stringify(never)}`);
    }
  }
}

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * A path git printed, as a string, or undefined when it is not valid UTF-8. Such a path can never be named back to
 * git (arguments are UTF-8) nor by an agent (JSON strings are), so callers treat it as a path nobody may read.
 */
export function utf8Path(raw: Buffer): string | undefined {
  try {
    return UTF8.decode(raw);
  } catch {
    return undefined;
  }
}
