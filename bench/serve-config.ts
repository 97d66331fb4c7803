// How the benches start `bin/git-blinder serve`: the same arguments and, for the read sections, the same perimeters,
// so that two sections' figures differ only by what each section sets on purpose.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** `p0` … `p<n-1>`: the perimeters a section shares its sessions out between. */
export const perimeterIds = (n: number): string[] => Array.from({ length: n }, (_, p) => `p${p}`);

/**
 * Writes `<work>/perimeters.yaml` (returning its path): one perimeter per id over `repo`, reading `**`, writing
 * nothing, with the operator's defaults apart from a call rate high enough not to shape the load.
 */
export async function writeReadPerimeters(work: string, repo: string, ids: readonly string[]): Promise<string> {
  const yaml = ['perimeters:'];
  for (const id of ids)
    yaml.push(
      `  ${id}:`,
      `    repo: ${repo}`,
      '    read: ["**"]',
      '    write: []',
      '    limits: { calls_per_minute: 1000000 }',
    );
  const config = join(work, 'perimeters.yaml');
  await writeFile(config, yaml.join('\n') + '\n');
  return config;
}

/** `serve`'s arguments: an ephemeral port, its own state dir, open perimeters from `config`, errors-only log; `extra` last. */
export function serveArgs(stateDir: string, config: string, extra: readonly string[] = []): string[] {
  return [
    '--port',
    '0',
    '--state-dir',
    stateDir,
    '--open-perimeters',
    '--config',
    config,
    '--log-level',
    'error',
    ...extra,
  ];
}
