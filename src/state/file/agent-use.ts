// The file adapter's record of when each agent last used its key: in memory, written to one JSON file of the state dir
// after a change (coalesced), so a restart still lists the last uses.
import { join } from 'node:path';
import * as z from 'zod/v4';
import { useDue } from '../../core/index.js';
import type { AgentUse } from '../types.js';
import { readStateFile, writeAtomic } from './atomic.js';

const USE_FILE = 'agent-use.json';
const UseFile = z.strictObject({ version: z.literal(1), uses: z.record(z.string(), z.record(z.string(), z.string())) });

/** How long after a change the file is written (several uses in a burst cost one write). */
const FLUSH_DELAY_MS = 2_000;

/** Opens the record in `stateDir` (in memory when undefined); `flush` writes what is pending (at close). */
export async function openFileAgentUse(
  stateDir: string | undefined,
  log: (error: string) => void = () => undefined,
): Promise<AgentUse & { flush(): Promise<void> }> {
  const file = stateDir === undefined ? undefined : join(stateDir, USE_FILE);
  const uses = new Map<string, Map<string, string>>();
  if (file !== undefined) {
    // A damaged record of last uses decides nothing: it is started over rather than stopping the server.
    const read = await readStateFile(file, UseFile, 'Agent use file').catch(() => undefined);
    if (read?.ok && read.value)
      for (const [p, agents] of Object.entries(read.value.uses)) uses.set(p, new Map(Object.entries(agents)));
  }
  const recorded = new Map<string, number>();
  let timer: NodeJS.Timeout | undefined;
  let writing: Promise<void> = Promise.resolve();
  // Nothing recorded, nothing written: a server that stops before serving (a port in use) leaves no file behind.
  let dirty = false;
  const flush = async () => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    if (file === undefined || !dirty) return;
    dirty = false;
    const body = { version: 1, uses: Object.fromEntries([...uses].map(([p, a]) => [p, Object.fromEntries(a)])) };
    writing = writing.then(() => writeAtomic(file, JSON.stringify(body) + '\n')).catch((e: Error) => log(e.message));
    await writing;
  };
  return {
    touch(perimeter, agent) {
      const now = Date.now();
      const k = `${perimeter}\u0000${agent}`;
      if (!useDue(recorded.get(k), now)) return;
      recorded.set(k, now);
      const per = uses.get(perimeter) ?? new Map<string, string>();
      per.set(agent, new Date(now).toISOString());
      uses.set(perimeter, per);
      dirty = true;
      if (file !== undefined && timer === undefined) {
        timer = setTimeout(() => void flush(), FLUSH_DELAY_MS);
        timer.unref();
      }
    },
    async lastUse(perimeter) {
      return Object.fromEntries(uses.get(perimeter) ?? []);
    },
    flush,
  };
}
