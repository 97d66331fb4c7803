// Validates emulator responses against GitHub's own OpenAPI description (@octokit/openapi), per reference §16.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';

type Json = Record<string, unknown>;
const require = createRequire(import.meta.url);
// One file, not the package root (which loads all ten descriptions).
const spec = JSON.parse(readFileSync(require.resolve('@octokit/openapi/generated/api.github.com.json'), 'utf8')) as {
  paths: Record<string, Record<string, { responses: Record<string, Json> }>>;
  components: { schemas: Record<string, Json>; responses: Record<string, Json> };
};

/** OpenAPI 3.0 `nullable` → JSON Schema (Ajv refuses `nullable` without `type`). */
function fixNullable(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(fixNullable);
  if (!node || typeof node !== 'object') return node;
  const out: Json = {};
  for (const [k, v] of Object.entries(node)) out[k] = fixNullable(v);
  if (out.nullable === true) {
    delete out.nullable;
    if (typeof out.type === 'string') out.type = [out.type, 'null'];
    else if (!Array.isArray(out.type)) return { anyOf: [{ type: 'null' }, out] };
  }
  if (Array.isArray(out.enum) && Array.isArray(out.type) && out.type.includes('null') && !out.enum.includes(null))
    out.enum = [...out.enum, null];
  return out;
}

const schemas = fixNullable(spec.components.schemas) as Record<string, Json>;
const rewrite = (s: unknown): Json =>
  JSON.parse(JSON.stringify(s).replaceAll('"#/components/', '"gh#/components/')) as Json;

// ajv-formats is CommonJS; its default export arrives wrapped under ESM.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (
  a: Ajv,
) => Ajv;
const ajv = new Ajv({ strict: false, allErrors: true, discriminator: false });
addFormats(ajv);
for (const f of ['int32', 'int64', 'double', 'timestamp', 'repo.nwo', 'binary']) ajv.addFormat(f, true);
ajv.addSchema(rewrite({ components: { schemas } }), 'gh');

/** Statuses documented for an operation. */
export function documentedStatuses(method: string, path: string): string[] {
  const op = spec.paths[path]?.[method.toLowerCase()];
  if (!op) throw new Error(`no operation ${method} ${path}`);
  return Object.keys(op.responses);
}

function responseSchema(method: string, path: string, status: number, mediaType: string): Json | null {
  const op = spec.paths[path]?.[method.toLowerCase()];
  if (!op) throw new Error(`no operation ${method} ${path}`);
  let r = op.responses[String(status)];
  if (!r) throw new Error(`${method} ${path}: status ${status} not documented`);
  if (typeof r.$ref === 'string') r = spec.components.responses[r.$ref.split('/').pop() ?? ''] ?? {};
  const content = r.content as Record<string, { schema: unknown }> | undefined;
  const media = content?.[mediaType];
  if (!media) return null;
  const schema = fixNullable(media.schema) as Json;
  // Quirk: POST git/blobs 422 is oneOf [validation-error, repository-rule-violation-error], and the latter requires
  // nothing, so every validation error matches both branches. A top-level oneOf is read as anyOf.
  if (
    Array.isArray(schema.oneOf) &&
    schema.oneOf.some((b) => JSON.stringify(b).includes('repository-rule-violation-error'))
  ) {
    schema.anyOf = schema.oneOf;
    delete schema.oneOf;
  }
  return rewrite(schema);
}

const cache = new Map<string, ValidateFunction | null>();

/** Validates one response body; `errors` lists Ajv's complaints. Throws when the status is undocumented. */
export function validate(
  method: string,
  path: string,
  status: number,
  body: unknown,
  mediaType = 'application/json',
): { ok: boolean; errors: string[] } {
  const key = `${method} ${path} ${status} ${mediaType}`;
  if (!cache.has(key)) {
    const s = responseSchema(method, path, status, mediaType);
    cache.set(key, s && ajv.compile(s));
  }
  const fn = cache.get(key);
  if (!fn || fn(body)) return { ok: true, errors: [] };
  return { ok: false, errors: (fn.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? ''}`) };
}

/** Validates a body against a named component schema (for bodies of statuses the spec leaves out, e.g. 401). */
export function validateComponent(name: string, body: unknown): { ok: boolean; errors: string[] } {
  const fn = ajv.getSchema(`gh#/components/schemas/${name}`);
  if (!fn) throw new Error(`no schema ${name}`);
  if (fn(body)) return { ok: true, errors: [] };
  return { ok: false, errors: (fn.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? ''}`) };
}
