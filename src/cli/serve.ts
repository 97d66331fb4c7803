import { createPrivateKey } from 'node:crypto';
import { mkdir, readFile, rmdir } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { perimeterService } from '../registry/perimeters.js';
import { agentUrls } from '../http/api.js';
import { restoreCatalog } from '../http/api/restore-points.js';
import { issueKey } from '../http/keys.js';
import { cursorSeal, DEFAULT_LIMITS, Gate, type CallRecord } from '../mcp/index.js';
import type { CursorSeal } from '../registry/index.js';
import type { Perimeter } from '../core/index.js';
import { join } from 'node:path';
import { ALL_TOOLS, type Log } from '../registry/index.js';
import { openAudit, type Audit, type AuditSetup } from './audit.js';
import { ledgerAuditReader, storeAuditReader } from './audit-store.js';
import { CliError } from './client.js';
import { loadConfig, type BootConfig } from './config.js';
import { keyHint } from './hints.js';
import { planServeOpsToken } from './ops-token.js';
import { acquireStateLock } from './state-lock.js';
import { instanceId, openState } from './state.js';
import { compose, composeUpstreams } from './compose.js';
import { createWorkTreeWriters } from '../workspace/localfs/writes/index.js';
import { runGit } from '../gitcli/run.js';

export interface ServeOptions {
  readonly port: number;
  readonly host: string;
  readonly config?: string | undefined;
  readonly stateDir: string;
  readonly token?: string | undefined;
  readonly opsToken?: string | undefined;
  readonly githubUrl?: string | undefined;
  readonly root: boolean;
  readonly allowedHosts?: string[] | undefined;
  readonly openPerimeters: boolean;
  readonly privatePatterns?: string[] | undefined;
  /** Undefined switches the audit ledger off. */
  readonly audit?: AuditSetup | undefined;
  readonly sessionIdleSeconds: number;
  /** A postgres:// URL shared by several instances; undefined = the file store in the state dir. */
  readonly store?: string | undefined;
  /** Longest silence of the shared store before agent calls are refused. */
  readonly storeSilenceSeconds?: number | undefined;
  /** How long a proposal waits for a decision (default 24 h). */
  readonly proposalTtlSeconds?: number | undefined;
  readonly cwd: string;
  readonly home: string;
  readonly version: string;
  readonly log: Log;
  readonly out: (line: string) => void;
  /** Notices for the operator that are not command output (stderr). */
  readonly warn: (line: string) => void;
}

export interface Running {
  readonly url: string;
  close(): Promise<void>;
}

const DEFAULT_PERIMETER = 'local';
/** The embedded default is read-only: it does not even list a write tool (nor the connector aliases, an opt-in). */
const READ_TOOLS = ALL_TOOLS.filter(
  (t) => t.surfaces.includes('agent') && t.access === 'read' && t.aliasOf === undefined,
).map((t) => t.name);

async function repoRoot(cwd: string): Promise<string | undefined> {
  // Through src/gitcli like every other git call: the hardened flags and environment, no spawn of our own here.
  const run = await runGit(['rev-parse', '--show-toplevel'], { cwd });
  return run.code === 0 ? run.stdout.toString('utf8').trim() || undefined : undefined;
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);

/** Reads the audit signing key as the ledger will use it; a flag problem (exit 2), found before anything is written. */
async function checkSigningKey(file: string): Promise<void> {
  let why: string | undefined;
  try {
    const key = createPrivateKey(await readFile(file, 'utf8'));
    if (key.asymmetricKeyType !== 'ed25519') why = `it is a ${key.asymmetricKeyType ?? 'unknown'} key, not Ed25519`;
  } catch (e) {
    why = (e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (e as Error).message;
  }
  if (why)
    throw new CliError(
      `--audit-key: ${file} cannot be used (${why}); give an Ed25519 private key (PKCS#8 PEM) or drop --audit-key.`,
      2,
    );
}

/** A config perimeter the upstream check refused, in the form of every other config error (`file: perimeters.id.key: …`). */
function configError(file: string | undefined, id: string, message: string): string {
  return `Invalid config:\n  ${file ?? '(config)'}: perimeters.${id}.${message}`;
}

/** What `serve` says on stderr about a config perimeter it removed because the config no longer declares it. */
function removedNote(p: Perimeter, config: string): string {
  const keys = (p.keys ?? []).length;
  return (
    `note: perimeter ${p.id} (${p.repo}) is no longer in ${config}; removed it` +
    (keys ? ` and its ${keys} agent key(s) (agents holding them get 404)` : '') +
    '. Perimeters created with "perimeter create" are kept.'
  );
}

/** Binds the port; errors (in use, no such address) become a CliError and leave nothing listening. */
function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (e: NodeJS.ErrnoException) => {
      server.off('listening', onListening);
      reject(
        new CliError(
          e.code === 'EADDRINUSE'
            ? `Port ${port} on ${host} is already in use; pick another with --port.`
            : e.code === 'EACCES'
              ? `Port ${port} on ${host} needs privileges this process does not have; pick another with --port.`
              : `Cannot listen on ${host}:${port} (${e.code ?? e.message}); check --host and --port.`,
        ),
      );
    };
    const onListening = () => {
      server.off('error', onError);
      resolve();
    };
    server.once('error', onError);
    server.once('listening', onListening);
    server.listen(port, host);
  });
}

/**
 * Starts the server in an order that keeps a failed start from writing anything: flags and files are checked, the
 * state dir is locked, the boot config is checked against the upstreams (dry run), and the port is bound; only then
 * are perimeters, keys, the ops token and the ledger written, and only then is anything announced. The lock file is
 * the one write before the bind, and it is removed on any failure.
 */
export async function serve(o: ServeOptions): Promise<Running> {
  if (!LOOPBACK.has(o.host)) {
    if (!o.allowedHosts?.length)
      throw new CliError(
        `Binding to ${o.host} needs --allowed-host (the Host names clients use), to block DNS rebinding.`,
        2,
      );
    if (o.openPerimeters)
      throw new CliError(
        `--open-perimeters is refused beyond loopback: anyone reaching ${o.host} could use any perimeter.`,
        2,
      );
  }
  if (o.audit?.signingKeyFile) await checkSigningKey(o.audit.signingKeyFile);
  const boot = o.config ? await loadConfig(o.config, o.home) : undefined;
  if (boot && boot.errors.length > 0) throw new CliError(`Invalid config:\n  ${boot.errors.join('\n  ')}`);
  // Almost always a mistake, never a reason to refuse: said before anything starts.
  for (const w of boot?.warnings ?? []) o.warn(`warning: ${w}`);

  let created: string | undefined;
  try {
    created = await mkdir(o.stateDir, { recursive: true, mode: 0o700 });
  } catch (e) {
    throw new CliError(
      `--state-dir: cannot create ${o.stateDir} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}).`,
      2,
    );
  }
  // A state dir this start created is removed again if the start fails (rmdir: only while it is still empty).
  const forget = async () => {
    if (created !== undefined) await rmdir(o.stateDir).catch(() => undefined);
  };
  const locked = await acquireStateLock(o.stateDir);
  if (!locked.ok) {
    await forget();
    throw new CliError(locked.message);
  }
  // Undone in reverse on any failure below, so a refused start leaves no lock, socket or open upstream behind.
  const undo: (() => Promise<unknown>)[] = [() => locked.value.release()];
  try {
    return await start(o, boot?.config ?? { perimeters: [] }, undo);
  } catch (e) {
    for (const u of undo.reverse()) await u().catch(() => undefined);
    await forget();
    throw e;
  }
}

async function start(o: ServeOptions, boot: BootConfig, undo: (() => Promise<unknown>)[]): Promise<Running> {
  const configured = boot.perimeters;
  const state = await openState({
    store: o.store,
    stateDir: o.stateDir,
    instance: { id: instanceId(), version: o.version },
    silenceSeconds: o.storeSilenceSeconds ?? 10,
    log: o.log,
  });
  undo.push(() => state.close());
  const store = state.perimeters;

  // No token and no config: serve the current repository read-only, so a first run needs nothing else.
  const embedded = !o.token && !o.config;
  const here = embedded ? await repoRoot(o.cwd) : undefined;
  if (embedded && !here && store.list().length === 0) {
    throw new CliError(
      'Nothing to serve: run inside a git repository, pass --config, or give a GitHub token in GITHUB_TOKEN or --token-file.',
    );
  }

  const upstreams = composeUpstreams({
    state,
    token: o.token,
    githubUrl: o.githubUrl,
    fixedRepos: [...configured.map((p) => p.repo), ...(here ? [here] : [])],
    log: o.log,
    searchDir: join(o.stateDir, 'search'),
  });
  undo.push(() => Promise.all(upstreams.all.map((u) => u.close())));
  const service = perimeterService(store, upstreams.upstreamFor);

  const localSpec = here
    ? { id: DEFAULT_PERIMETER, repo: here, read: ['**'], write: [], tools: READ_TOOLS }
    : undefined;
  // Dry run of every boot change: a config error stops the start before the port is bound or the store touched.
  for (const spec of configured) {
    const made = await service.create(spec, { replace: true, dryRun: true, origin: 'config' });
    if (!made.ok) throw new CliError(configError(o.config, spec.id, made.message));
  }
  if (localSpec) {
    const made = await service.create(localSpec, { replace: true, dryRun: true });
    if (!made.ok) throw new CliError(`Cannot serve ${localSpec.repo}: ${made.message}`);
  }

  // The ledger is opened (and its salt written) after the bind; until then the app records into a late-bound slot.
  let audit: Audit | undefined;
  const ops = await planServeOpsToken({ opsToken: o.opsToken, githubToken: o.token, stateDir: o.stateDir });
  // The change-cursor key (32 random bytes, a 0600 file of the state dir, so cursors survive a restart) is read after
  // the bind like the audit salt; calls are only served once it is there.
  const cursorKey: { loaded?: CursorSeal } = {};
  const cursors: CursorSeal = {
    seal: (plain) => {
      if (!cursorKey.loaded) throw new Error('cursor key not loaded yet');
      return cursorKey.loaded.seal(plain);
    },
    open: (token) => cursorKey.loaded?.open(token),
    sealId: (plain) => {
      if (!cursorKey.loaded) throw new Error('cursor key not loaded yet');
      return cursorKey.loaded.sealId(plain);
    },
    openId: (token) => cursorKey.loaded?.openId(token),
  };

  const policy = { privatePatterns: o.privatePatterns ?? [], defaultLimits: { ...DEFAULT_LIMITS, ...boot.limits } };
  // One writer set: previews (propose_*) and approved writes share its per-worktree queue.
  const writers = createWorkTreeWriters({
    log: o.log,
    ...(state.branchLock ? { branchLock: state.branchLock } : {}),
  });
  let publicUrl = '';
  const auditDir = o.audit?.dir;
  const { app, proposals } = await compose({
    state,
    upstreams,
    log: o.log,
    policy,
    cursors,
    writers,
    proposals: { ttlMs: o.proposalTtlSeconds === undefined ? undefined : o.proposalTtlSeconds * 1000 },
    // Calls, commits and upstream requests per hour are counted in the store (one budget for every instance).
    counters: state.counters,
    gate: new Gate(),
    ...(o.audit
      ? {
          record: (r: CallRecord) => audit?.record(r),
          recordApi: (r: Parameters<Audit['recordApi']>[0]) => audit?.recordApi(r),
          recordAuth: (e: Parameters<Audit['recordAuth']>[0]) => audit?.recordAuth(e),
        }
      : {}),
    proposalEvent: (e) => audit?.recordProposal(e),
    app: {
      opsToken: ops.token,
      ...(o.audit
        ? {
            auditHealth: () => audit?.health() ?? { status: 'starting', warnings: [] },
            statusExtra: () => ({ audit: audit?.state() }),
            recentAudit: async (n: number) => (audit ? audit.recent(n) : []),
            // GET /api/audit: every instance's entries from the store's copy; on the file store, this one's own ledger.
            auditRead: state.audit
              ? storeAuditReader(state.audit)
              : ledgerAuditReader(() => join(auditDir ?? o.stateDir, 'audit.jsonl')),
          }
        : {}),
      version: o.version,
      publicUrl: () => publicUrl,
      host: o.host,
      ...(o.allowedHosts ? { allowedHosts: o.allowedHosts } : {}),
      rootEnabled: o.root,
      openPerimeters: o.openPerimeters,
      ...(o.allowedHosts?.length ? { allowedOrigins: o.allowedHosts } : {}),
      sessionIdleMs: o.sessionIdleSeconds * 1000,
      stateDir: o.stateDir,
    },
  });
  // A broken invariant, not a user error: `proposals` was asked for above.
  if (!proposals) throw new Error('serve composed without proposals');
  undo.push(() => app.close());

  // express's app.listen() hands a bind error to its callback as if it were success; listen on a plain server instead.
  // Until the start completes (perimeters written, ledger open) every request gets 503: nothing is served unaudited.
  let ready = false;
  const server = createServer((req, res) => {
    if (ready) return void app.app(req, res);
    res.writeHead(503, { 'content-type': 'text/plain', 'retry-after': '1' }).end('git-blinder is starting\n');
  });
  await listen(server, o.port, o.host);
  undo.push(async () => {
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  });
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : o.port;
  const hostForUrl = o.host.includes(':') ? `[${o.host}]` : o.host;
  publicUrl = `http://${hostForUrl}:${port}`;

  // The port is ours: now write.
  for (const spec of configured) {
    const made = await service.create(spec, { replace: true, origin: 'config' });
    if (!made.ok) throw new CliError(configError(o.config, spec.id, made.message));
  }
  // The config is the whole truth about the perimeters it made: one it no longer declares is removed with its keys
  // (a start without --config leaves them, as it leaves every stored perimeter). Runtime perimeters are kept.
  if (o.config) {
    const pruned = await service.pruneConfig(configured.map((p) => p.id));
    if (!pruned.ok) throw new CliError(pruned.message);
    for (const p of pruned.value) o.warn(removedNote(p, o.config));
  }
  if (localSpec) {
    const before = store.get(DEFAULT_PERIMETER);
    const made = await service.create(localSpec, { replace: true });
    if (!made.ok) throw new CliError(`Cannot serve ${localSpec.repo}: ${made.message}`);
    if (before && before.repo !== localSpec.repo) {
      const dropped = (before.keys ?? []).length;
      o.warn(
        `note: perimeter ${DEFAULT_PERIMETER} moved from ${before.repo} to ${localSpec.repo} (this state dir was last served from the other repository)` +
          (dropped ? `; its ${dropped} agent key(s) were revoked, agents holding them get 404` : '') +
          '. Give each repository its own --state-dir to keep both.',
      );
    }
  }
  // The embedded default perimeter gets a key at first start when keys are required; shown once, here.
  let embeddedKey: string | undefined;
  const local = store.get(DEFAULT_PERIMETER);
  if (here && !o.openPerimeters && local && !(local.keys ?? []).length) {
    const issued = issueKey(new Date());
    const added = await service.addKey(DEFAULT_PERIMETER, issued.record);
    if (!added.ok) throw new CliError(added.message);
    embeddedKey = issued.key;
  }
  await ops.persist();
  // Shared by every instance on the store (the file store: <state dir>/cursor.key, as before).
  cursorKey.loaded = cursorSeal(await state.sharedKey('cursor.key'));
  if (o.audit) {
    // On a shared store the ledger ships its chain to the store's copy (issue 21): one audit answer for all instances.
    const ship = state.audit ? { copy: state.audit } : undefined;
    const opened = await openAudit(o.audit, await state.sharedKey('audit.salt'), o.log, ship);
    audit = opened;
    undo.push(() => opened.close());
  }
  // What a previous process left half-done is settled (from the branch, never by re-running) before anything is served.
  const settled = await proposals.reconcile();
  if (settled > 0) o.log('info', 'proposals reconciled at start', { count: settled });
  // Reads expire overdue proposals too; the sweep makes the ledger say so even when nobody looks.
  // Restore points past their retention (RESTORE_KEEP_DAYS, and never within their proposal's TTL) go with it.
  const points = restoreCatalog({
    perimeters: () => store.list(),
    upstreamFor: upstreams.upstreamFor,
    writers,
    proposals,
  });
  const pruneRestorePoints = async () => {
    const out = await points.prune();
    if (!out.ok) o.log('warn', 'restore point pruning failed', { error: out.error.message });
    else if (out.value.length > 0) o.log('info', 'restore points pruned', { count: out.value.length, ids: out.value });
  };
  const sweep = setInterval(() => {
    void proposals.expire().catch((e: unknown) => o.log('warn', 'proposal expiry failed', { error: String(e) }));
    // Shared store: an apply whose instance died after the last start is settled once that instance is gone.
    if (state.kind === 'postgres')
      void proposals
        .reconcile()
        .catch((e: unknown) => o.log('warn', 'proposal reconcile failed', { error: String(e) }));
  }, 60_000);
  sweep.unref();
  undo.push(async () => clearInterval(sweep));
  // Hourly: retention is counted in days, and a pass lists every point of every repository.
  const prune = setInterval(
    () =>
      void pruneRestorePoints().catch((e: unknown) =>
        o.log('warn', 'restore point pruning failed', { error: String(e) }),
      ),
    3_600_000,
  );
  prune.unref();
  undo.push(async () => clearInterval(prune));
  ready = true;

  // One write, so a reader that waits for "listening on" has the whole announcement (keys, hints) with it.
  const lines: string[] = [];
  lines.push(`git-blinder ${o.version} listening on ${publicUrl}`);
  lines.push(`ops token: ${ops.source}`);
  for (const p of store.list())
    for (const url of agentUrls(publicUrl, p)) lines.push(`agent URL: ${url}  (${p.id} → ${p.repo})`);
  if (embeddedKey)
    lines.push(
      `agent key for ${DEFAULT_PERIMETER} (shown once; send it as "Authorization: Bearer <key>"): ${embeddedKey}`,
    );
  // Keys for other perimeters are issued on request only, so no secret lands in a start-up log the operator did not ask for.
  if (!o.openPerimeters) for (const p of store.list()) if (!(p.keys ?? []).length) lines.push(`next: ${keyHint(p.id)}`);
  if (o.openPerimeters)
    lines.push(
      'perimeters are OPEN: anyone who can reach this port and knows a perimeter id can use it (--open-perimeters)',
    );
  if (audit) lines.push(`audit ledger: ${audit.ledger.state().file}`);
  if (o.root) lines.push(`operator surface: ${publicUrl}/mcp/root (never give this URL to an agent)`);
  lines.push(`approval page: ${publicUrl}/ui (sign in with the ops token)`);
  o.out(lines.join('\n'));
  o.log('info', 'server started', {
    url: publicUrl,
    perimeters: store.list().length,
    github: upstreams.github !== undefined,
  });

  const closers = [...undo].reverse();
  undo.length = 0; // started: from here on, close() owns the teardown
  let closing: Promise<void> | undefined;
  return {
    url: publicUrl,
    close: () =>
      (closing ??= (async () => {
        for (const c of closers) await c().catch(() => undefined);
      })()),
  };
}
