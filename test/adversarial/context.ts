// What every attack module receives: the fixture, connected agents, and the checks they share.
import type { Agent } from '../support/server.js';
import type { Fixture } from './fixture.js';
import { unfence } from '../support/fence.js';
import { callTool, check, noLeak, redact, type CallOut } from './harness.js';

export interface Ctx {
  readonly fx: Fixture;
  /** Agent of perimeter `app` on main (read app/** and docs/*.md; write app/**, drop/**, .github/**, CODEOWNERS, .gitmodules). */
  readonly app: Agent;
  /** Perimeter `narrow`: get_file only. */
  readonly narrow: Agent;
  /** A 2026-07-28 (stateless) client of perimeter `app`. */
  readonly modern: Agent;
}

/** The tool answer as one string (text and structured content), for leak scans. */
export const whole = (r: CallOut): string => `${r.text}\n${JSON.stringify(r.structured ?? null)}`;

/** Calls a read tool that must not answer with anything hidden: an error, or only missing results. */
export async function blockedRead(
  ctx: Ctx,
  tool: string,
  args: Record<string, unknown>,
  opts: { agent?: Agent; allow?: string[]; mustFail?: boolean; listOk?: boolean } = {},
): Promise<CallOut> {
  const r = await callTool(opts.agent ?? ctx.app, tool, args);
  if (opts.mustFail ?? tool !== 'list_commits') {
    if (tool === 'get_files' && !r.isError) {
      check(r.structured.found === 0, `get_files found ${r.structured.found}: ${r.text.slice(0, 200)}`);
    } else if (tool === 'get_tree' && opts.listOk === true && !r.isError) {
      // A glob-looking directory that happens to be readable may list; it must list nothing hidden (leak scan below).
      check(Array.isArray(r.structured.entries), 'get_tree answered without entries');
    } else {
      check(r.isError === true, `${tool} answered: ${r.text.slice(0, 200)}`);
    }
  }
  noLeak(ctx.fx, whole(r), args, opts.allow);
  return r;
}

/**
 * The answers of several calls must be byte-identical once each call's own path (or sha) is masked and each answer's
 * untrusted-text fence (random per answer) is numbered.
 */
export async function sameAnswers(
  ctx: Ctx,
  calls: { tool: string; args: Record<string, unknown>; mask: string[]; agent?: Agent }[],
): Promise<void> {
  const answers: string[] = [];
  for (const c of calls) {
    const r = await callTool(c.agent ?? ctx.app, c.tool, c.args);
    noLeak(ctx.fx, whole(r), c.args);
    answers.push(
      redact(
        JSON.stringify({ isError: r.isError ?? false, text: unfence(r.text), structured: r.structured ?? null }),
        ...c.mask,
      ),
    );
  }
  const first = answers[0];
  for (const [i, a] of answers.entries()) check(a === first, `answer ${i} differs:\n  ${first}\n  ${a}`);
}
