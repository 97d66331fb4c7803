// What an agent may learn about other agents (issue 23 §2), decided once. Presence is a channel like any answer: a
// path is shown only when the asker can read it, another perimeter's agent is only "another agent", and activity the
// asker cannot read is simply absent (a lease is the one thing that can refuse a write on an unreadable path, with
// the generic message of SPEC §8's blind-write residual). Pure: the notes, proposals and leases are passed in.
import { compileGlobs, isLiteralSegment, type GlobSet } from './glob.js';
import type { Scope } from './scope.js';

/** Who asks, as the key says. */
export interface Asker {
  readonly perimeter: string;
  readonly agent: string;
  readonly scope: Scope;
}

/** Another agent's activity, as the store keeps it (no policy applied yet). */
export interface Sighting {
  readonly perimeter: string;
  readonly agent: string;
}

export interface NoteIn extends Sighting {
  readonly kind: 'seen' | 'wrote';
  readonly paths: readonly string[];
  readonly at: string;
}

export interface ProposalIn extends Sighting {
  readonly paths: readonly string[];
  readonly created_at: string;
}

export interface LeaseIn extends Sighting {
  readonly patterns: readonly string[];
  readonly write: readonly string[];
  readonly expiresAt: string;
}

/** What the asker is told. */
export interface PresenceView {
  /** Agents of the asker's perimeter seen on this branch recently (`agent@perimeter`). */
  readonly agents: readonly { readonly agent: string; readonly last_seen: string }[];
  /** How many agents of other perimeters were seen on this branch recently (never named). */
  readonly other_agents: number;
  readonly writes: readonly Mention[];
  readonly proposals: readonly Mention[];
  readonly leases: readonly { readonly agent: string; readonly until: string; readonly paths: readonly string[] }[];
}

export interface Mention {
  readonly agent: string;
  readonly at: string;
  readonly paths: readonly string[];
}

/**
 * How long notes are kept and how many per repository and perimeter: presence is about the last minutes, never a
 * history. The count is per perimeter so one perimeter's writes never push out another's notes.
 */
export const ACTIVITY_KEEP_MS = 60 * 60 * 1000;
export const ACTIVITY_MAX_PER_PERIMETER = 1000;

/** The most `wrote` notes any perimeter keeps on a repository, whatever its budget (memory bound). */
export const ACTIVITY_KEEP_CEILING = 100_000;

/**
 * How many `wrote` notes a perimeter keeps on a repository: twice what its `commits_per_hour` allows (a counter's window
 * may start inside the hour the notes are kept), never fewer than ACTIVITY_MAX_PER_PERIMETER. Within its budget a
 * perimeter then never loses a note to its own later writes, so another perimeter watching its visible notes can
 * never count the hidden ones (when old notes were evicted by count, their early disappearance did). Only a budget
 * above ACTIVITY_KEEP_CEILING / 2 per hour brings eviction back.
 */
export function activityKeep(commitsPerHour: number): number {
  return Math.max(ACTIVITY_MAX_PER_PERIMETER, Math.min(2 * commitsPerHour, ACTIVITY_KEEP_CEILING));
}

/** What "recent" means for presence: the last 15 minutes. */
export const PRESENCE_RECENT_MS = 15 * 60 * 1000;

/** Entries per list and paths per entry: presence is a hint, never a dump. */
export const PRESENCE_MAX_ENTRIES = 20;
export const PRESENCE_MAX_PATHS = 20;

/** The words another agent is shown by: named within the asker's perimeter only. */
export function otherAgentLabel(asker: Pick<Asker, 'perimeter'>, s: Sighting): string {
  return s.perimeter === asker.perimeter ? `${s.agent}@${s.perimeter}` : 'another agent';
}

/** Newest first; ties (one clock tick, a fixed test clock) by agent, then paths, so no store order or id shows. */
const byRecency = (a: Mention, b: Mention): number =>
  b.at.localeCompare(a.at) || a.agent.localeCompare(b.agent) || a.paths.join('\n').localeCompare(b.paths.join('\n'));

const isSelf = (asker: Asker, s: Sighting): boolean => s.perimeter === asker.perimeter && s.agent === asker.agent;

/** `path` is `prefix` or below it ('' = everything). */
export function underPrefix(path: string, prefix: string): boolean {
  return prefix === '' || path === prefix || path.startsWith(`${prefix}/`);
}

/** The literal directory (or file) a glob starts with: the segments before the first wildcard. */
export function staticPrefix(pattern: string): { readonly path: string; readonly literal: boolean } {
  const segs = pattern.split('/');
  const i = segs.findIndex((s) => !isLiteralSegment(s));
  return i === -1 ? { path: pattern, literal: true } : { path: segs.slice(0, i).join('/'), literal: false };
}

/** The lease patterns an asker may see: a file it can read, or a glob whose fixed part could hold one. */
function visiblePatterns(asker: Asker, l: LeaseIn, prefix: string): string[] {
  return l.patterns.filter((p) => {
    const s = staticPrefix(p);
    const readable = s.literal ? asker.scope.canRead(s.path) : asker.scope.canList(s.path);
    return readable && (underPrefix(s.path, prefix) || (!s.literal && underPrefix(prefix, s.path)));
  });
}

/** The readable paths of a note or proposal under `prefix`, capped after the cut. */
function cut(asker: Asker, paths: readonly string[], prefix: string): string[] {
  return paths.filter((p) => asker.scope.canRead(p) && underPrefix(p, prefix)).slice(0, PRESENCE_MAX_PATHS);
}

/** The view of other agents' activity on the asker's branch, below `prefix`. */
export function presenceView(
  asker: Asker,
  prefix: string,
  notes: readonly NoteIn[],
  proposals: readonly ProposalIn[],
  leases: readonly LeaseIn[],
): PresenceView {
  const others = notes.filter((n) => !isSelf(asker, n));
  const seen = new Map<string, string>();
  const strangers = new Set<string>();
  for (const n of others) {
    if (n.perimeter !== asker.perimeter) strangers.add(`${n.perimeter}\u0000${n.agent}`);
    else {
      const label = otherAgentLabel(asker, n);
      const prev = seen.get(label);
      if (prev === undefined || prev < n.at) seen.set(label, n.at);
    }
  }
  const mention = (s: Sighting, at: string, paths: readonly string[]): Mention[] => {
    const shown = cut(asker, paths, prefix);
    return shown.length === 0 ? [] : [{ agent: otherAgentLabel(asker, s), at, paths: shown }];
  };
  return {
    agents: [...seen]
      .map(([agent, last_seen]) => ({ agent, last_seen }))
      .sort((a, b) => b.last_seen.localeCompare(a.last_seen) || a.agent.localeCompare(b.agent))
      .slice(0, PRESENCE_MAX_ENTRIES),
    other_agents: strangers.size,
    writes: others
      .filter((n) => n.kind === 'wrote')
      .flatMap((n) => mention(n, n.at, n.paths))
      .sort(byRecency)
      .slice(0, PRESENCE_MAX_ENTRIES),
    proposals: proposals
      .filter((p) => !isSelf(asker, p))
      .flatMap((p) => mention(p, p.created_at, p.paths))
      .sort(byRecency)
      .slice(0, PRESENCE_MAX_ENTRIES),
    leases: leases
      .filter((l) => !isSelf(asker, l))
      .flatMap((l) => {
        const paths = visiblePatterns(asker, l, prefix);
        return paths.length === 0 ? [] : [{ agent: otherAgentLabel(asker, l), until: l.expiresAt, paths }];
      })
      .sort(
        (a, b) =>
          a.until.localeCompare(b.until) ||
          a.agent.localeCompare(b.agent) ||
          a.paths.join('\n').localeCompare(b.paths.join('\n')),
      )
      .slice(0, PRESENCE_MAX_ENTRIES),
  };
}

/**
 * True when a lease pattern lies inside a write scope: a literal path the scope may write, or a glob whose fixed part
 * could hold a file it may write. Judged on the pattern's text alone (never on what the repository holds).
 */
export function insideWrite(pattern: string, scope: Pick<Scope, 'canWrite'>, write: GlobSet): boolean {
  const s = staticPrefix(pattern);
  return s.literal ? scope.canWrite(s.path) : write.globs.length > 0 && write.couldContain(s.path);
}

/** Whether a lease binds a path (it names it, and its holder may write it), its globs compiled once per call. */
function leaseMatcher(l: Pick<LeaseIn, 'patterns' | 'write'>): (path: string) => boolean {
  const names = compileGlobs(l.patterns);
  const writable = compileGlobs(l.write);
  return (path) => names.matches(path) && writable.matches(path);
}

/** The generic refusal: the write touches another agent's lease on paths the writer cannot read. */
export const ACTIVE_IN_WRITE_AREA =
  'Refused: another agent is active in your write area; nothing was written. Retry later, or write elsewhere.';

/**
 * Why a write of `paths` by `writer` is refused by another agent's lease, or undefined when none binds them. A leased
 * path the writer can read is named with the lease's end; leased paths it cannot read only ever give the generic
 * refusal (never the path, the holder or the time).
 */
export function leaseRefusal(writer: Asker, paths: readonly string[], leases: readonly LeaseIn[]): string | undefined {
  const binding = leases.filter((l) => !isSelf(writer, l)).map((l) => ({ l, covers: leaseMatcher(l) }));
  if (binding.length === 0) return undefined;
  let generic = false;
  const named: { path: string; until: string }[] = [];
  for (const p of paths) {
    const hits = binding.filter((b) => b.covers(p));
    if (hits.length === 0) continue;
    if (!writer.scope.canRead(p)) {
      generic = true;
      continue;
    }
    const until = hits.map((b) => b.l.expiresAt).sort()[hits.length - 1] ?? '';
    named.push({ path: p, until });
  }
  if (named.length > 0) {
    const first = named[0] as { path: string; until: string };
    const more = named.length > 1 ? ` (and ${named.length - 1} more leased path(s))` : '';
    return `Refused: ${first.path} is leased by another agent until ${first.until}${more}; nothing was written. Retry after that, or write elsewhere.`;
  }
  return generic ? ACTIVE_IN_WRITE_AREA : undefined;
}

/**
 * Who else touches the paths of a new proposal (for the approver, who sees every perimeter): other agents' pending
 * proposals and recent commits on the branch whose paths overlap, named `agent@perimeter`. Bounded like the view.
 */
export function overlapsFor(
  self: Sighting,
  paths: readonly string[],
  notes: readonly NoteIn[],
  proposals: readonly ProposalIn[],
): { agent: string; paths: string[] }[] {
  const mine = new Set(paths);
  const byAgent = new Map<string, Set<string>>();
  for (const x of [...proposals, ...notes.filter((n) => n.kind === 'wrote')]) {
    if (x.perimeter === self.perimeter && x.agent === self.agent) continue;
    const hit = x.paths.filter((p) => mine.has(p));
    if (hit.length === 0) continue;
    const k = `${x.agent}@${x.perimeter}`;
    const set = byAgent.get(k) ?? new Set<string>();
    for (const h of hit) set.add(h);
    byAgent.set(k, set);
  }
  return [...byAgent]
    .sort(([a], [b]) => a.localeCompare(b))
    .slice(0, PRESENCE_MAX_ENTRIES)
    .map(([agent, set]) => ({ agent, paths: [...set].sort().slice(0, 50) }));
}
