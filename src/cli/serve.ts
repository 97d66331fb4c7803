import { execFile } from 'node:child_process';
import type { Server } from 'node:http';
import { promisify } from 'node:util';
import { createApp } from '../http/app.js';
import { perimeterService } from '../registry/perimeters.js';
import { openStore } from '../registry/store.js';
import { agentUrls } from '../http/api.js';
import { issueKey } from '../http/keys.js';
import { DEFAULT_LIMITS, Gate, RateLimiter } from '../mcp/index.js';
import { ALL_TOOLS, type Log } from '../registry/index.js';
import { openAudit, type AuditSetup } from './audit.js';
import { CliError } from './client.js';
import { loadConfig } from './config.js';
import { resolveServeOpsToken } from './ops-token.js';
import { buildUpstreams } from './upstreams.js';

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
  readonly cwd: string;
  readonly home: string;
  readonly version: string;
  readonly log: Log;
  readonly out: (line: string) => void;
}

export interface Running {
  readonly url: string;
  close(): Promise<void>;
}

const DEFAULT_PERIMETER = 'local';
/** The embedded default is read-only: it does not even list a write tool. */
const READ_TOOLS = ALL_TOOLS.filter((t) => t.agentSurface && t.access === 'read').map((t) => t.name);

async function repoRoot(cwd: string): Promise<string | undefined> {
  try {
    const { stdout } = await promisify(execFile)('git', ['rev-parse', '--show-toplevel'], { cwd });
    return stdout.trim() || undefined;
  } catch {
    return undefined;
  }
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);

/** Starts the server: state → config → upstreams → app → listen. Nothing listens if any step fails. */
export async function serve(o: ServeOptions): Promise<Running> {
  if (!LOOPBACK.has(o.host)) {
    if (!o.allowedHosts?.length) throw new CliError(`Binding to ${o.host} needs --allowed-host (the Host names clients use), to block DNS rebinding.`);
    if (o.openPerimeters) throw new CliError(`--open-perimeters is refused beyond loopback: anyone reaching ${o.host} could use any perimeter.`);
  }
  const opened = await openStore(o.stateDir);
  if (!opened.ok) throw new CliError(opened.message);
  const store = opened.value;

  const boot = o.config ? await loadConfig(o.config, o.home) : undefined;
  if (boot && boot.errors.length > 0) throw new CliError(`Invalid config:\n  ${boot.errors.join('\n  ')}`);

  // No token and no config: serve the current repository read-only, so a first run needs nothing else.
  const embedded = !o.token && !o.config;
  const here = embedded ? await repoRoot(o.cwd) : undefined;
  if (embedded && !here && store.list().length === 0) {
    throw new CliError('Nothing to serve: run inside a git repository, pass --config, or give a GitHub token with --token.');
  }

  const localRepos = [...(boot?.config?.perimeters ?? []).map((p) => p.repo), ...store.list().map((p) => p.repo), ...(here ? [here] : [])].filter(
    (r) => r.startsWith('/'),
  );
  const upstreams = buildUpstreams({ token: o.token, githubUrl: o.githubUrl, localRepos, log: o.log });
  const service = perimeterService(store, upstreams.upstreamFor);

  for (const spec of boot?.config?.perimeters ?? []) {
    const made = await service.create(spec, { replace: true });
    if (!made.ok) throw new CliError(`Invalid config: perimeters.${spec.id}.${made.message}`);
  }
  if (here) {
    const made = await service.create({ id: DEFAULT_PERIMETER, repo: here, read: ['**'], write: [], tools: READ_TOOLS }, { replace: true });
    if (!made.ok) throw new CliError(`Cannot serve ${here}: ${made.message}`);
  }

  // The embedded default perimeter gets a key at first start when keys are required; shown once, here.
  let embeddedKey: string | undefined;
  const local = store.get(DEFAULT_PERIMETER);
  if (here && !o.openPerimeters && local && !(local.keys ?? []).length) {
    const issued = issueKey(new Date());
    await service.addKey(DEFAULT_PERIMETER, issued.record);
    embeddedKey = issued.key;
  }

  const audit = o.audit ? await openAudit(o.audit, o.stateDir, o.log) : undefined;

  const ops = await resolveServeOpsToken({ opsToken: o.opsToken, githubToken: o.token, stateDir: o.stateDir });

  let publicUrl = '';
  const app = createApp({
    store,
    upstreamFor: upstreams.upstreamFor,
    upstreams: upstreams.all,
    opsToken: ops.token,
    invoke: { upstreamFor: upstreams.upstreamFor, log: o.log, limiter: new RateLimiter(), gate: new Gate(), ...(audit ? { record: audit.record } : {}) },
    ...(audit ? { recordApi: audit.recordApi, statusExtra: () => ({ audit: audit.state() }) } : {}),
    version: o.version,
    publicUrl: () => publicUrl,
    host: o.host,
    ...(o.allowedHosts ? { allowedHosts: o.allowedHosts } : {}),
    rootEnabled: o.root,
    openPerimeters: o.openPerimeters,
    ...(o.allowedHosts?.length ? { allowedOrigins: o.allowedHosts } : {}),
    policy: { privatePatterns: o.privatePatterns ?? [], defaultLimits: { ...DEFAULT_LIMITS, ...boot?.config?.limits } },
    sessionIdleMs: o.sessionIdleSeconds * 1000,
    stateDir: o.stateDir,
  });

  const server: Server = await new Promise((resolve, reject) => {
    const s = app.app.listen(o.port, o.host, () => resolve(s));
    s.once('error', (e: NodeJS.ErrnoException) =>
      reject(new CliError(e.code === 'EADDRINUSE' ? `Port ${o.port} on ${o.host} is already in use; pick another with --port.` : e.message)),
    );
  });
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : o.port;
  const hostForUrl = o.host.includes(':') ? `[${o.host}]` : o.host;
  publicUrl = `http://${hostForUrl}:${port}`;

  o.out(`git-blinder ${o.version} listening on ${publicUrl}`);
  o.out(`ops token: ${ops.source}`);
  for (const p of store.list()) for (const url of agentUrls(publicUrl, p)) o.out(`agent URL: ${url}  (${p.id} → ${p.repo})`);
  if (embeddedKey) o.out(`agent key for ${DEFAULT_PERIMETER} (shown once; send it as "Authorization: Bearer <key>"): ${embeddedKey}`);
  if (o.openPerimeters) o.out('perimeters are OPEN: anyone who can reach this port and knows a perimeter id can use it (--open-perimeters)');
  if (audit) o.out(`audit ledger: ${audit.ledger.state().file}`);
  if (o.root) o.out(`operator surface: ${publicUrl}/mcp/root (never give this URL to an agent)`);
  o.log('info', 'server started', { url: publicUrl, perimeters: store.list().length, github: upstreams.github !== undefined });

  return {
    url: publicUrl,
    close: async () => {
      await app.close();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
      await Promise.all(upstreams.all.map((u) => u.close()));
      await audit?.ledger.close();
    },
  };
}
