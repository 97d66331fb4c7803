import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { CommanderError } from 'commander';
import { CliError } from './client.js';
import { createLogger } from './log.js';
import { buildProgram, type ServeFlags } from './program.js';

/** The package version, read once from package.json next to dist/. */
function version(): string {
  try {
    return (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string })
      .version;
  } catch {
    return '0.0.0';
  }
}

/** Composition root: argv and env in, exit code out. The only place that touches process and console. */
export async function main(argv: string[]): Promise<void> {
  const out = (line: string) => process.stdout.write(`${line}\n`);
  const err = (line: string) => process.stderr.write(`${line}\n`);
  const v = version();

  const runServe = async (f: ServeFlags) => {
    const log = createLogger(f.logLevel);
    // Handlers go in before the start: a signal that lands while it is under way (or right after "listening") still
    // gets a clean shutdown, which removes the state-dir lock, instead of the default kill.
    const started: { running?: { close(): Promise<void> } } = {};
    let signalled: string | undefined;
    const stop = (signal: string) => {
      if (signalled) return;
      signalled = signal;
      log('info', 'shutting down', { signal });
      // Still starting: the start below sees `signalled` and stops as soon as it is up (or it fails and exits).
      if (!started.running) return;
      started.running.close().then(
        () => process.exit(0),
        () => process.exit(1),
      );
    };
    process.once('SIGINT', () => stop('SIGINT'));
    process.once('SIGTERM', () => stop('SIGTERM'));
    // Server code (express, the SDK, Octokit) loads only for the commands that need it: operator commands stay quick.
    const { serve } = await import('./serve.js');
    started.running = await serve({
      port: f.port,
      host: f.host,
      config: f.config,
      stateDir: f.stateDir,
      token: f.token,
      opsToken: f.opsToken,
      githubUrl: f.githubUrl,
      root: f.root,
      allowedHosts: f.allowedHost,
      openPerimeters: f.openPerimeters,
      privatePatterns: f.private,
      audit: f.audit
        ? {
            dir: f.auditDir ?? join(f.stateDir, 'audit'),
            clearPaths: f.auditClearPaths,
            signingKeyFile: f.auditKey,
            maxBytes: f.auditMaxBytes,
            keep: f.auditKeep,
            ...(f.auditMinAge === undefined ? {} : { minAgeMs: f.auditMinAge * 86_400_000 }),
          }
        : undefined,
      sessionIdleSeconds: f.sessionIdle,
      store: f.store,
      storeSilenceSeconds: f.storeSilence,
      proposalTtlSeconds: f.proposalTtl,
      cwd: process.cwd(),
      home: homedir(),
      version: v,
      log,
      out,
      warn: err,
    });
    if (signalled) {
      const s = signalled;
      signalled = undefined;
      stop(s);
    }
  };

  const runStdio = async (o: { url: string; perimeter: string; branch?: string; key?: string }) => {
    const { runStdioBridge } = await import('./stdio.js');
    await runStdioBridge({ ...o, err });
  };
  const program = buildProgram({ out, err, env: process.env, version: v, serve: runServe, stdio: runStdio });
  try {
    await program.parseAsync(argv);
  } catch (e) {
    // Exit codes are chosen here only: 0 done, 1 failed, 2 usage.
    if (e instanceof CommanderError) process.exit(e.exitCode === 0 ? 0 : 2);
    if (e instanceof CliError) {
      if (e.message) err(`error: ${e.message}`);
      process.exit(e.exitCode);
    }
    err(`error: ${e instanceof Error ? e.message : String(e)}`);
    process.exit(1);
  }
}
