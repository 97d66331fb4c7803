import { readFile } from 'node:fs/promises';
import { dirname, isAbsolute, resolve } from 'node:path';
import { parse } from 'yaml';
import * as z from 'zod/v4';
import { describeIssues, Limits, PerimeterSpec } from '../core/index.js';

/** A YAML config: perimeters preloaded at boot. The token never lives here. */
const ConfigFile = z.strictObject({
  /** Server-wide defaults for every perimeter's `limits` (a perimeter's own values win). */
  limits: Limits.optional(),
  perimeters: z.record(z.string(), z.record(z.string(), z.unknown())).default({}),
});

export interface BootConfig {
  readonly limits?: Limits;
  readonly perimeters: PerimeterSpec[];
}

/** True when a perimeter's `repo` names a local repository rather than `owner/name`. */
export function isLocalRepo(repo: string): boolean {
  return repo === '.' || repo === '~' || /^(\/|\.\.?\/|~\/)/.test(repo);
}

/**
 * Parses config text: YAML → shape → each perimeter through the same schema as the API, local repo paths resolved
 * against the config file's folder. Pure apart from path arithmetic; errors name the key.
 */
export function parseConfig(text: string, configDir: string, home: string): { config?: BootConfig; errors: string[] } {
  let raw: unknown;
  try {
    raw = parse(text) ?? {};
  } catch (e) {
    return { errors: [`not valid YAML: ${(e as Error).message}`] };
  }
  const shape = ConfigFile.safeParse(raw);
  if (!shape.success) return { errors: [describeIssues(shape.error)] };
  const errors: string[] = [];
  const perimeters: PerimeterSpec[] = [];
  for (const [id, body] of Object.entries(shape.data.perimeters)) {
    const repo = typeof body.repo === 'string' && isLocalRepo(body.repo) ? localPath(body.repo, configDir, home) : body.repo;
    const spec = PerimeterSpec.safeParse({ ...body, id, repo });
    if (!spec.success) {
      errors.push(...describeIssues(spec.error).split('; ').map((m) => `perimeters.${id}.${m}`));
      continue;
    }
    perimeters.push(spec.data);
  }
  if (errors.length > 0) return { errors };
  return { config: shape.data.limits ? { limits: shape.data.limits, perimeters } : { perimeters }, errors: [] };
}

function localPath(p: string, base: string, home: string): string {
  if (p === '~' || p.startsWith('~/')) return resolve(home, p.slice(2));
  return isAbsolute(p) ? p : resolve(base, p);
}

/** Reads and parses a config file. */
export async function loadConfig(file: string, home: string): Promise<{ config?: BootConfig; errors: string[] }> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    return { errors: [`cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`] };
  }
  const out = parseConfig(text, dirname(resolve(file)), home);
  return { ...out, errors: out.errors.map((e) => `${file}: ${e}`) };
}
