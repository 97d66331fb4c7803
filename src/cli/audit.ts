import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import {
  keyIdOf,
  loadOrCreateInstanceId,
  openLedger,
  queryLedger,
  startShipper,
  type AuditLog,
  type Ledger,
  type LedgerState,
  AuditVerdict,
  type Shipper,
  type ShipState,
} from '../audit/index.js';
import type { AuditCopy } from '../state/types.js';
import { storeEvents } from './audit-store.js';
import { isAgentName } from '../core/index.js';
import type { AuditStatus } from '../http/api/schema.js';
import type { CallRecord } from '../mcp/index.js';
import type { Log } from '../registry/index.js';
import { sourceKey, type OpsCheckEvent } from '../http/ops-gate.js';
import type { ProposalEvent } from '../registry/proposals.js';
import { CliError } from './client.js';
import { jsonText, table } from './table.js';

export interface AuditSetup {
  readonly dir: string;
  readonly clearPaths: boolean;
  /** Path to an Ed25519 private key (PKCS#8 PEM); a missing or invalid one stops startup. */
  readonly signingKeyFile?: string | undefined;
  readonly maxBytes?: number | undefined;
  readonly keep?: number | undefined;
  /** A segment younger than this (ms) is never pruned; default 30 days. */
  readonly minAgeMs?: number | undefined;
}

export interface Audit {
  readonly ledger: Ledger;
  /** Closes the ledger (every accepted entry written), then ships what it wrote (bounded wait) and stops shipping. */
  close(): Promise<void>;
  /** Queues the call's entry; resolves once it holds a place (a call whose perimeter's share is full waits here). */
  record(r: CallRecord): Promise<void>;
  recordApi(r: {
    method: string;
    route: string;
    status: number;
    durationMs: number;
    bytes: number;
    source: string;
    at: string;
  }): void;
  /** One check of the ops token outside /api (/mcp/root, GET /mcp, the /ui sign-in). */
  recordAuth(e: OpsCheckEvent): void;
  /** One proposal transition (proposed, approved, applying, applied, failed, rejected, cancelled, expired). */
  recordProposal(e: ProposalEvent): void;
  state(): AuditStatus;
  /** `ok` or `degraded`, and why (the console). */
  health(): { status: 'ok' | 'degraded'; warnings: string[] };
  /** The newest `limit` events, newest first (the web console's list); a read failure is an empty list plus a log line. */
  recent(limit: number): Promise<AuditSummary[]>;
}

/** One ledger event as the web console shows it. */
export interface AuditSummary {
  ts: string;
  surface: string;
  perimeter?: string;
  branch?: string;
  tool: string;
  agent?: string;
  verdict: string;
  result: string;
}

/** Opens the ledger for the server. Fails closed: a configured key that cannot be loaded stops the server. `salt` is the
 * store's shared one, so a path hashes the same in every instance's ledger and one query can follow it across them. */
export async function openAudit(
  o: AuditSetup,
  salt: Uint8Array,
  log: Log,
  ship?: { readonly copy: AuditCopy },
): Promise<Audit> {
  let signingKey: { keyId: string; privateKeyPem: string } | undefined;
  if (o.signingKeyFile) {
    let pem: string;
    try {
      pem = await readFile(o.signingKeyFile, 'utf8');
      signingKey = { keyId: keyIdOf(pem), privateKeyPem: pem };
    } catch (e) {
      throw new CliError(
        `Audit signing key ${o.signingKeyFile} cannot be used (${(e as Error).message}); fix it or drop --audit-key.`,
      );
    }
  }
  const logTo: AuditLog = (level, msg, fields) => log(level === 'error' ? 'error' : 'warn', `audit: ${msg}`, fields);
  let shipper: Shipper | undefined;
  let ledger: Ledger;
  try {
    // The shipper starts before the ledger takes entries: what is on disk then is durable, the rest it is told about.
    if (ship)
      shipper = await startShipper({
        dir: o.dir,
        instance: await loadOrCreateInstanceId(o.dir),
        copy: ship.copy,
        log: logTo,
        retention: {
          ...(o.keep !== undefined ? { keep: o.keep } : {}),
          ...(o.minAgeMs !== undefined ? { minAgeMs: o.minAgeMs } : {}),
        },
      });
    const shipped = shipper;
    ledger = await openLedger({
      dir: o.dir,
      salt: Buffer.from(salt),
      clearPaths: o.clearPaths,
      ...(signingKey ? { signingKey } : {}),
      ...(o.maxBytes !== undefined ? { maxBytes: o.maxBytes } : {}),
      ...(o.keep !== undefined ? { keep: o.keep } : {}),
      ...(o.minAgeMs !== undefined ? { minAgeMs: o.minAgeMs } : {}),
      log: logTo,
      ...(shipped
        ? { shippedThrough: () => shipped.shippedThrough(), onDurable: (seq: number) => shipped.durable(seq) }
        : {}),
    });
  } catch (e) {
    await shipper?.close();
    throw new CliError(`Cannot open the audit ledger in ${o.dir}: ${(e as Error).message}`);
  }
  return {
    ledger,
    async close() {
      await ledger.close();
      await shipper?.close();
    },
    // submit() never rejects; a failure is visible in state() and the log, never in a tool answer. The call is answered
    // once its entry holds a place in its perimeter's share of the queue: back-pressure, never a silent drop.
    record: (r) =>
      ledger.submit(
        {
          surface: r.surface,
          ...(r.perimeter === undefined ? {} : { perimeter: r.perimeter }),
          ...(r.branch === undefined ? {} : { branch: r.branch }),
          tool: r.tool,
          ...(r.agent === undefined ? {} : { agent: r.agent }),
          ...(r.client === undefined ? {} : { client: r.client }),
          verdict: r.verdict,
          result: r.result,
          bytes: r.bytes,
          durationMs: r.durationMs,
          ...(r.commit === undefined ? {} : { commit: r.commit }),
          paths: [...r.paths],
        },
        { share: r.surface === 'agent' ? `p:${r.perimeter ?? ''}` : r.surface },
      ).admitted,
    // Refusals cost the caller nothing: they wait behind every call entry and merge per source (see ledger.ts).
    recordApi: (r) => {
      const refused = r.status === 401 || r.status === 403 || r.status === 429;
      void ledger.append(
        {
          surface: 'api',
          tool: `${r.method} ${r.route}`,
          verdict: refused ? 'deny' : r.status >= 500 ? 'error' : 'allow',
          result: String(r.status),
          bytes: r.bytes,
          durationMs: r.durationMs,
          at: r.at,
          ...(refused ? { source: sourceKey(r.source) } : {}),
        },
        // 429 is also an upstream's rate limit on a route: those merge per route, not across routes.
        refused
          ? { lane: 'bulk', coalesce: `${r.source}\u0000${r.status}${r.status === 429 ? `\u0000${r.route}` : ''}` }
          : {},
      );
    },
    // A web sign-in is a person's act: its own entry. Failures, waits and the root surface's per-request checks merge
    // per source, surface and outcome like /api refusals, so a guessing campaign cannot flood the ledger.
    recordAuth: (e) => {
      const own = e.surface === 'web' && e.outcome === 'ok';
      void ledger.append(
        {
          surface: e.surface,
          tool: e.route,
          verdict: e.outcome === 'ok' ? 'allow' : 'deny',
          result:
            e.outcome === 'ok'
              ? e.surface === 'web'
                ? 'signed_in'
                : 'ops_token_ok'
              : e.outcome === 'wrong'
                ? 'wrong_ops_token'
                : 'backing_off',
          bytes: 0,
          durationMs: 0,
          at: e.at,
          source: e.source,
        },
        own
          ? {}
          : { lane: 'bulk', coalesce: `auth\u0000${e.source}\u0000${e.surface}\u0000${e.route}\u0000${e.outcome}` },
      );
    },
    recordProposal: ({ proposal: p, event, by }) =>
      void ledger.append({
        surface: by === 'agent' ? 'agent' : 'api',
        perimeter: p.perimeter,
        branch: p.branch,
        tool: `proposal.${event}`,
        // The agent the proposal is for (records from before agent ids hold a client label: no agent then).
        ...(isAgentName(p.agent) ? { agent: p.agent } : {}),
        client: by.slice(0, 256),
        verdict:
          event === 'failed'
            ? 'error'
            : event === 'rejected' || event === 'cancelled' || event === 'expired'
              ? 'deny'
              : 'allow',
        result: event,
        bytes: 0,
        durationMs: 0,
        ...(p.status === 'applied' ? { commit: p.commit } : {}),
        paths: [...p.facts.paths],
        args: { proposal: p.id, hash: p.hash, base: p.base },
      }),
    health: () => healthOf(ledger.state(), shipper?.state()),
    state: () => {
      const s = ledger.state();
      const sh = shipper?.state();
      const { status, warnings } = healthOf(s, sh);
      return {
        status,
        ...(warnings.length > 0 ? { warnings } : {}),
        file: s.file,
        entries: s.entries,
        failures: s.failures,
        queued: s.queued,
        coalesced: s.coalesced,
        dropped: s.dropped,
        lost: s.lost,
        waited: s.waited,
        max_waited_ms: s.maxWaitedMs,
        batches: s.batches,
        max_batch: s.maxBatch,
        retention: {
          held: s.retention.held,
          pruned_segments: s.retention.prunedSegments,
          ...(s.retention.lastPrune
            ? {
                last_prune: {
                  at: s.retention.lastPrune.at,
                  first_seq: s.retention.lastPrune.firstSeq,
                  through_seq: s.retention.lastPrune.throughSeq,
                  segments: s.retention.lastPrune.segments.length,
                },
              }
            : {}),
        },
        ...(s.lastError ? { last_error: s.lastError } : {}),
        signed: signingKey !== undefined,
        clear_paths: o.clearPaths,
        ...(sh
          ? {
              shipping: {
                instance: sh.instance,
                shipped_seq: sh.shippedSeq ?? null,
                local_seq: sh.localSeq,
                shipped: sh.shipped,
                batches: sh.batches,
                ...(sh.lastError === undefined ? {} : { last_error: sh.lastError }),
                ...(sh.stopped === undefined ? {} : { stopped: sh.stopped }),
              },
            }
          : {}),
      };
    },
    // A full scan of the retained ledger keeping a window: fine for a console page (segments are bounded by maxBytes × keep).
    recent: async (limit) => {
      const window: AuditSummary[] = [];
      try {
        for await (const e of queryLedger(ledger.state().file)) {
          window.push({
            ts: e.ts,
            surface: e.surface,
            ...(e.perimeter === undefined ? {} : { perimeter: e.perimeter }),
            ...(e.branch === undefined ? {} : { branch: e.branch }),
            tool: e.tool,
            ...(e.agent === undefined ? {} : { agent: e.agent }),
            verdict: e.verdict,
            result: e.result,
          });
          if (window.length > limit) window.shift();
        }
      } catch (e) {
        log('warn', 'audit: cannot read the ledger for the console', { error: (e as Error).message });
      }
      return window.reverse();
    },
  };
}

/**
 * Any lost entry, a failing disk, retention held past --audit-keep or shipping stopped for good: the record is not what
 * it should be. A store that does not answer is a warning only: the entries wait on disk and nothing is lost.
 */
function healthOf(s: LedgerState, sh?: ShipState): { status: 'ok' | 'degraded'; warnings: string[] } {
  const bad = !s.ok || s.lost > 0 || s.retention.held > 0 || sh?.stopped !== undefined;
  return { status: bad ? 'degraded' : 'ok', warnings: [...ledgerWarnings(s), ...shipWarnings(sh)] };
}

/** What the operator should know about shipping to the store's copy. */
function shipWarnings(sh: ShipState | undefined): string[] {
  if (sh === undefined) return [];
  if (sh.stopped !== undefined)
    return [`audit shipping to the store stopped: ${sh.stopped}; entries stay on this disk only`];
  if (sh.lastError === undefined) return [];
  const waiting = sh.shippedSeq === undefined ? '' : ` (entries ${sh.shippedSeq + 1}..${sh.localSeq})`;
  return [
    `audit shipping to the store is paused (${sh.lastError}): entries wait on this disk${waiting} and are shipped when it answers`,
  ];
}

/** What the operator should know about the ledger, one sentence each (status, /api/health and the console). */
export function ledgerWarnings(s: LedgerState): string[] {
  const out: string[] = [];
  if (s.lost > 0)
    out.push(
      `${s.lost} audit entries were lost (queue full or write failed); the ledger is incomplete since this start`,
    );
  if (!s.ok) out.push(`the last audit write failed: ${s.lastError ?? 'unknown error'}`);
  if (s.retention.held > 0) {
    out.push(
      `${s.retention.held} ledger segment(s) beyond --audit-keep are younger than --audit-min-age or not yet shipped to the store: kept, the ledger grows (raise --audit-max-bytes or --audit-keep)`,
    );
  }
  const p = s.retention.lastPrune;
  if (p)
    out.push(
      `audit segments pruned at ${p.at}: entries ${p.firstSeq}-${p.throughSeq} (${p.segments.length} segment(s)) are no longer on disk`,
    );
  return out;
}

/** The active ledger file of a state dir. */
export const defaultLedgerFile = (stateDir: string) => join(stateDir, 'audit', 'audit.jsonl');

/** The filters `audit tail|query` take. */
export interface AuditFilterFlags {
  perimeter?: string;
  agent?: string;
  since?: string;
  verdict?: string;
  tool?: string;
  limit?: number;
  json?: boolean;
}

/** Checks --since and --verdict (usage errors, exit 2). */
function checkFilters(f: AuditFilterFlags): { since: Date | undefined; verdict: AuditVerdict | undefined } {
  const since = f.since ? new Date(f.since) : undefined;
  if (since && Number.isNaN(since.getTime()))
    throw new CliError(`--since "${f.since}" is not a date (use ISO 8601, e.g. 2026-11-30T10:00:00Z).`, 2);
  const verdict = f.verdict === undefined ? undefined : AuditVerdict.safeParse(f.verdict);
  if (verdict && !verdict.success)
    throw new CliError(`--verdict must be one of ${AuditVerdict.options.join(', ')}.`, 2);
  return { since, verdict: verdict?.data };
}

/**
 * `audit tail` / `audit query`: reads ledger files directly (no server needed). With several files (one chain per
 * instance on a shared store) the entries are merged by time and each row names the ledger it came from.
 */
export async function printAudit(
  files: readonly string[],
  f: AuditFilterFlags,
  out: (l: string) => void,
): Promise<void> {
  const { since, verdict } = checkFilters(f);
  let rows: Record<string, unknown>[] = [];
  for (const file of files) {
    // The reader skips a missing active file (a server that has not written yet); a wrong --file is the operator's error.
    if (
      !(await stat(file).then(
        (s) => s.isFile(),
        () => false,
      ))
    )
      throw new CliError(`no audit ledger at ${file} (pass --file or --state-dir).`, 2);
    try {
      for await (const e of queryLedger(file, {
        ...(f.perimeter ? { perimeter: f.perimeter } : {}),
        ...(f.agent ? { agent: f.agent } : {}),
        ...(since ? { since } : {}),
        ...(verdict ? { verdict } : {}),
        ...(f.tool ? { tool: f.tool } : {}),
      })) {
        rows.push(
          files.length > 1
            ? { ledger: file, ...(e as unknown as Record<string, unknown>) }
            : (e as unknown as Record<string, unknown>),
        );
      }
    } catch (e) {
      throw new CliError(`Cannot read ${file}: ${(e as Error).message}`);
    }
  }
  // A stable sort by time: one ledger's own order (its sequence) is kept among equal times.
  if (files.length > 1) rows = rows.sort((a, b) => String(a.ts).localeCompare(String(b.ts)));
  renderAudit(f.limit ? rows.slice(-f.limit) : rows, files.length > 1 ? ['LEDGER', 'ledger'] : undefined, f, out);
}

/**
 * `audit tail|query --store`: every instance's events from the store's copy (issue 21), merged in time order; each
 * row names the instance whose ledger holds it. No state dir is read.
 */
export async function printStoreAudit(copy: AuditCopy, f: AuditFilterFlags, out: (l: string) => void): Promise<void> {
  const { since, verdict } = checkFilters(f);
  const events = await storeEvents(copy, {
    perimeter: f.perimeter,
    tool: f.tool,
    verdict,
    since: since?.toISOString(),
    limit: f.limit,
  });
  const rows = events.map((e) => ({ instance: e.instance, ...(e.entry as unknown as Record<string, unknown>) }));
  renderAudit(rows, ['INSTANCE', 'instance'], f, out);
}

/** Prints rows as JSON lines or a table; `origin` adds the column naming where each row came from. */
function renderAudit(
  shown: readonly Record<string, unknown>[],
  origin: readonly [string, string] | undefined,
  f: AuditFilterFlags,
  out: (l: string) => void,
): void {
  if (f.json) {
    for (const r of shown) out(jsonText(r));
    return;
  }
  const cols = [
    'SEQ',
    'TIME',
    'SURFACE',
    'PERIMETER',
    'BRANCH',
    'TOOL',
    'AGENT',
    'CLIENT',
    'VERDICT',
    'RESULT',
    'BYTES',
    'COMMIT',
  ];
  // Credential checks name no client; their source address is who did it (issue 20), shown in the same column.
  const who = (r: Record<string, unknown>) => r.client ?? (r.source === undefined ? '' : `from ${String(r.source)}`);
  const cells = (r: Record<string, unknown>) => [
    r.seq,
    r.ts,
    r.surface,
    r.perimeter ?? '',
    r.branch ?? '',
    r.tool,
    r.agent ?? '',
    who(r),
    r.verdict,
    r.result,
    r.bytes,
    r.commit ?? '',
  ];
  out(
    origin
      ? table(
          [origin[0], ...cols],
          shown.map((r) => [r[origin[1]], ...cells(r)].map((v) => String(v))),
        )
      : table(
          cols,
          shown.map((r) => cells(r).map((v) => String(v))),
        ),
  );
}
