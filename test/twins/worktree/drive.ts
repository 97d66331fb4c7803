// Drives one pair of working-tree twins: both served under the same perimeter spec by two real servers, one real MCP
// client each, the same calls in the same order; every answer compared byte for byte after three mappings that carry
// no hidden information:
// - commit ids: each twin's visible commits map to their label (V0…, O1); a hidden or made-up id a call named maps to
//   the label it was named by, in that call's answer and in the run's later answers (a proposal's summary echoes it:
//   the agent's own words), never before;
// - proposal ids: random (src/registry/proposal-ids.ts), so each twin's are mapped by the call that first showed them
//   (<P@7>: the proposal the 8th call made), which keeps one twin's extra proposal from renumbering all later ones;
//   `{ $proposal: n }` names this twin's n-th latest proposal;
// - the twin's directory (the perimeter's repo) maps to <repo>.
import { createHash } from 'node:crypto';
import { createLocalWorkspace } from '../../../src/workspace/localfs/index.js';
import { startTestServer, type Agent, type TestServer } from '../../support/server.js';
import { diffAnswers, IdMap, type Answer } from '../equal.js';
import type { ArgValue, Call } from './calls.js';
import { buildTwins, type BuildOptions } from './generate.js';
import { perimeterOf, type Twin, type TwinSpec } from './spec.js';
import { acceptedResidual } from './residuals.js';

/** The two servers a hunt runs against (started once, a fresh perimeter per pair). */
export interface TwinServers {
  readonly a: TestServer;
  readonly b: TestServer;
  close(): Promise<void>;
}

/** Starts two identical servers with working trees and proposals; `capBytes` is git's output cap per process. */
export async function startTwinServers(capBytes: number): Promise<TwinServers> {
  // One fixed clock on both: proposal times are not hidden content, and a clock would make every answer differ.
  const now = () => Date.UTC(2026, 5, 1);
  const start = () => startTestServer({ workspace: createLocalWorkspace({ maxBytes: capBytes }), proposals: { now } });
  const [a, b] = await Promise.all([start(), start()]);
  return { a, b, close: async () => void (await Promise.all([a.close(), b.close()])) };
}

/** One call whose answers differed. */
export interface Difference {
  readonly tool: string;
  /** The arguments as sent (symbolic revisions and proposal ids). */
  readonly args: Call['args'];
  readonly detail: string;
}

const madeUp = (label: string) => createHash('sha1').update(`twin made-up ${label}`).digest('hex');
const PROPOSAL_ID = /\bp[a-z2-7]{24}\b/g;
const UNKNOWN_PROPOSAL = 'p' + 'a'.repeat(24);

/** What one twin needs while its calls run. */
class Side {
  /** Proposal ids in order of first appearance, with the index of the call that showed each. */
  readonly proposals: { id: string; at: number }[] = [];
  readonly visibleIds = new IdMap();
  /** Hidden or made-up ids an earlier call of this run named, by label: echoes of them later (a proposal's summary) are the agent's own words. */
  private readonly named = new Map<string, string>();
  readonly twin: Twin;
  readonly agent: Agent;
  constructor(twin: Twin, agent: Agent) {
    this.twin = twin;
    this.agent = agent;
    for (const [label, id] of twin.visible) this.visibleIds.add(id, label);
  }

  /** The call's arguments with this twin's ids, and the id map for its answer. */
  resolve(args: Call['args']): { args: Record<string, unknown>; ids: IdMap } {
    const ids = new IdMap();
    for (const [label, id] of this.twin.visible) ids.add(id, label);
    for (const [label, id] of this.named) ids.add(id, label);
    const walk = (v: ArgValue): unknown => {
      if (Array.isArray(v)) return v.map(walk);
      if (typeof v !== 'object' || v === null) return v;
      if ('$rev' in v && typeof v.$rev === 'string') {
        const label = v.$rev;
        const id = this.twin.visible.get(label) ?? this.twin.hidden.get(label) ?? madeUp(label);
        ids.add(id, label);
        if (!this.twin.visible.has(label)) this.named.set(label, id);
        return id;
      }
      if ('$proposal' in v && typeof v.$proposal === 'number')
        return this.proposalRef(v.$proposal)?.id ?? UNKNOWN_PROPOSAL;
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x as ArgValue)]));
    };
    return { args: walk(args as ArgValue) as Record<string, unknown>, ids };
  }

  /** This twin's n-th latest proposal. */
  proposalRef(n: number): { id: string; at: number } | undefined {
    return this.proposals[this.proposals.length - 1 - n];
  }

  /** The answer with proposal ids numbered by first appearance and the twin's directory named <repo>. */
  normalise(a: Answer, at: number): Answer {
    const fix = (s: string) =>
      s
        .split(this.twin.dir)
        .join('<repo>')
        .replace(PROPOSAL_ID, (id) => {
          if (id === UNKNOWN_PROPOSAL) return id;
          let seen = this.proposals.find((p) => p.id === id);
          if (seen === undefined) this.proposals.push((seen = { id, at }));
          return `<P@${seen.at}>`;
        });
    return {
      isError: a.isError,
      text: fix(a.text),
      structured: a.structured === undefined ? undefined : JSON.parse(fix(JSON.stringify(a.structured))),
    };
  }

  async call(c: Call, at: number): Promise<{ answer: Answer; ids: IdMap }> {
    const { args, ids } = this.resolve(c.args);
    let answer: Answer;
    try {
      const r = await this.agent.call(c.tool, args);
      answer = { isError: r.isError === true, text: r.text, structured: r.structured };
    } catch (e) {
      // A protocol error is an answer too (an unknown tool, a schema refusal): compared like any other.
      answer = { isError: true, text: `thrown: ${e instanceof Error ? e.message : String(e)}`, structured: undefined };
    }
    return { answer: mapIds(this.normalise(answer, at), ids), ids: new IdMap() };
  }
}

/**
 * The answer with commit ids mapped in every string as the agent reads it (in JSON escaping, `\n` before an id reads
 * as `n` + hex and the id's word boundary is lost), so `diffAnswers` then compares with empty maps.
 */
function mapIds(a: Answer, ids: IdMap): Answer {
  const deep = (v: unknown): unknown => {
    if (typeof v === 'string') return ids.map(v);
    if (Array.isArray(v)) return v.map(deep);
    if (v !== null && typeof v === 'object')
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [ids.map(k), deep(x)]));
    return v;
  };
  return { isError: a.isError, text: ids.map(a.text), structured: deep(a.structured) };
}

const proposalArg = (c: Call): number | undefined => {
  const v = c.args.proposal_id;
  return typeof v === 'object' && v !== null && '$proposal' in v && typeof v.$proposal === 'number'
    ? v.$proposal
    : undefined;
};

let perimeters = 0;

/**
 * Builds the twins of `spec`, serves them, sends `calls` to both and returns every call whose answers differ; with
 * `only`, just the calls of those tools ('tools/list' for the listing).
 */
export async function drivePair(
  servers: TwinServers,
  spec: TwinSpec,
  calls: readonly Call[],
  build: BuildOptions,
  only?: ReadonlySet<string>,
): Promise<Difference[]> {
  const [ta, tb] = await buildTwins(spec, build);
  const id = `w${++perimeters}`;
  const agents: Agent[] = [];
  try {
    const perimeter = { id, ...perimeterOf(spec.shared) };
    await Promise.all([
      servers.a.perimeter({ ...perimeter, repo: ta.dir }),
      servers.b.perimeter({ ...perimeter, repo: tb.dir }),
    ]);
    const [aa, ab] = await Promise.all([servers.a.connect(`/mcp/${id}`), servers.b.connect(`/mcp/${id}`)]);
    agents.push(aa, ab);
    const sa = new Side(ta, aa);
    const sb = new Side(tb, ab);
    const out: Difference[] = [];
    if (only === undefined || only.has('tools/list')) {
      const [la, lb] = await Promise.all([aa.client.listTools(), ab.client.listTools()]);
      const list = (l: typeof la): Answer => ({ isError: false, text: '', structured: l.tools });
      const listed = diffAnswers(list(la), list(lb), sa.visibleIds, sb.visibleIds);
      if (listed !== undefined) out.push({ tool: 'tools/list', args: {}, detail: listed });
    }
    for (const [i, c] of calls.entries()) {
      if (only !== undefined && !only.has(c.tool)) continue;
      // A proposal named by position is comparable only when both twins made it in the same call; otherwise an earlier
      // difference (already reported) decided which proposal this is.
      const n = proposalArg(c);
      if (n !== undefined && sa.proposalRef(n)?.at !== sb.proposalRef(n)?.at) continue;
      const [ra, rb] = await Promise.all([sa.call(c, i), sb.call(c, i)]);
      const accepted = acceptedResidual(spec, c.tool);
      const d = diffAnswers(accepted(ra.answer), accepted(rb.answer), ra.ids, rb.ids);
      if (d !== undefined) out.push({ tool: c.tool, args: c.args, detail: d });
    }
    return out;
  } finally {
    await Promise.all(agents.map((a) => a.close().catch(() => undefined)));
    await Promise.all([servers.a.store.delete(id), servers.b.store.delete(id)]).catch(() => undefined);
    await Promise.all([ta.cleanup(), tb.cleanup()]);
  }
}
