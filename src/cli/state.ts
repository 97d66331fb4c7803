// Which state adapter `serve` runs on: the file store in the state dir (default, no database) or PostgreSQL.
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { loadOrCreateSalt } from '../audit/salt.js';
import type { Log } from '../registry/index.js';
import { openFileState } from '../state/file/index.js';
import { openPostgresState } from '../state/postgres/index.js';
import type { SharedState } from '../state/types.js';
import { CliError } from './client.js';

/** One id per process: hostname (for the operator reading `status`), pid, and a random tail so restarts differ. */
export function instanceId(): string {
  return `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
}

/** Opens the configured store; a store that cannot be opened stops the start (exit 1) with a message naming no secret. */
export async function openState(o: {
  store: string | undefined;
  stateDir: string;
  instance: { id: string; version: string };
  silenceSeconds: number;
  log: Log;
}): Promise<SharedState> {
  if (o.store === undefined) {
    const opened = await openFileState(o.stateDir, o.instance, (name) => loadOrCreateSalt(o.stateDir, name));
    if (!opened.ok) throw new CliError(opened.message);
    return opened.value;
  }
  const opened = await openPostgresState({
    url: o.store,
    instance: o.instance,
    staleMs: o.silenceSeconds * 1000,
    log: o.log,
  });
  if (!opened.ok) throw new CliError(opened.message);
  return opened.value;
}
