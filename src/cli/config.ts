import { readFile } from 'node:fs/promises';
import { dirname, isAbsolute, resolve } from 'node:path';
import { parse } from 'yaml';
import * as z from 'zod/v4';
import { Approval, Limits, PerimeterSpec, Pulls } from '../core/index.js';
import { closest } from './suggest.js';
import { perimeterWarnings } from './warnings.js';

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

/** A parsed config: `config` only when there are no errors; warnings never stop the server. */
export interface ConfigResult {
  config?: BootConfig;
  errors: string[];
  warnings: string[];
}

/** True when a perimeter's `repo` names a local repository rather than `owner/name`. */
export function isLocalRepo(repo: string): boolean {
  return repo === '.' || repo === '~' || /^(\/|\.\.?\/|~\/)/.test(repo);
}

/**
 * Parses config text: YAML → shape → each perimeter through the same schema as the API, local repo paths resolved
 * against the config file's folder. Pure apart from path arithmetic; errors name the key.
 */
export function parseConfig(text: string, configDir: string, home: string): ConfigResult {
  let raw: unknown;
  try {
    raw = parse(text) ?? {};
  } catch (e) {
    return { errors: [`not valid YAML: ${(e as Error).message}`], warnings: [] };
  }
  const shape = ConfigFile.safeParse(raw);
  if (!shape.success) return { errors: configIssues(shape.error, [], TOP_KEYS), warnings: [] };
  const errors: string[] = [];
  const perimeters: PerimeterSpec[] = [];
  for (const [id, body] of Object.entries(shape.data.perimeters)) {
    const repo =
      typeof body.repo === 'string' && isLocalRepo(body.repo)
        ? resolveLocalPath(body.repo, configDir, home)
        : body.repo;
    const spec = PerimeterSpec.safeParse({ ...body, id, repo });
    if (!spec.success) {
      errors.push(...configIssues(spec.error, ['perimeters', id], PERIMETER_KEYS));
      continue;
    }
    perimeters.push(spec.data);
  }
  const warnings = perimeters.flatMap((p) => perimeterWarnings(p));
  if (Object.keys(shape.data.perimeters).length === 0)
    warnings.unshift('the config defines no perimeters (expected a "perimeters:" map of id → repo, read, write…).');
  return errors.length > 0
    ? { errors, warnings }
    : { config: shape.data.limits ? { limits: shape.data.limits, perimeters } : { perimeters }, errors: [], warnings };
}

// The keys a config may use where, for "did you mean": the perimeter's own (its id is the map key), and the two
// nested objects. A key at any other level has no suggestion.
const PERIMETER_KEYS: Readonly<Record<string, readonly string[]>> = {
  '': Object.keys(PerimeterSpec.shape).filter((k) => k !== 'id'),
  limits: Object.keys(Limits.shape),
  approval: Object.keys(Approval.shape),
  pulls: Object.keys(Pulls.shape),
};
const TOP_KEYS: Readonly<Record<string, readonly string[]>> = {
  '': Object.keys(ConfigFile.shape),
  limits: Object.keys(Limits.shape),
};

/**
 * Config errors in the one form every config error takes (`perimeters.docs.read.0: message`): the full key path from
 * the top of the file (`(top level)` only for the file itself), and an unknown key named as a key, with the closest
 * known one when there is one (`perimeters.docs.reads: unknown key; did you mean "read"?`).
 */
export function configIssues(
  error: z.ZodError,
  at: readonly (string | number)[],
  known: Readonly<Record<string, readonly string[]>>,
): string[] {
  const name = (path: readonly PropertyKey[]) => [...at, ...path].map(String).join('.') || '(top level)';
  return error.issues.flatMap((i) => {
    if (i.code !== 'unrecognized_keys') return [`${name(i.path)}: ${i.message}`];
    const candidates = known[i.path.map(String).join('.')] ?? [];
    return i.keys.map((k) => {
      const near = closest(k, candidates);
      return `${name([...i.path, k])}: unknown key${near ? `; did you mean "${near}"?` : ` (known here: ${candidates.join(', ') || 'none'})`}`;
    });
  });
}

/** Resolves a local repository path (`~`, relative or absolute) against `base`. */
export function resolveLocalPath(p: string, base: string, home: string): string {
  if (p === '~' || p.startsWith('~/')) return resolve(home, p.slice(2));
  return isAbsolute(p) ? p : resolve(base, p);
}

/** Reads and parses a config file. */
export async function loadConfig(file: string, home: string): Promise<ConfigResult> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    return {
      errors: [`cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`],
      warnings: [],
    };
  }
  const out = parseConfig(text, dirname(resolve(file)), home);
  return { ...out, errors: out.errors.map((e) => `${file}: ${e}`), warnings: out.warnings.map((w) => `${file}: ${w}`) };
}
