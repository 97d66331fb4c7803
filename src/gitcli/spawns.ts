// A process-wide count of the git processes git-blinder started, by command, for diagnostics, the bench and the
// tests that prove a call's process budget. Counting only: nothing reads it to decide anything.

const counts = new Map<string, number>();

/** Records one spawned git process running `command` (its first word(s)). */
export function countSpawn(command: string): void {
  counts.set(command, (counts.get(command) ?? 0) + 1);
}

/** Total git processes started so far, and per command. */
export function spawnCounts(): { total: number; byCommand: Record<string, number> } {
  let total = 0;
  for (const n of counts.values()) total += n;
  return { total, byCommand: Object.fromEntries(counts) };
}
