// The schemas a tool publishes in tools/list: the zod schemas, converted once and made compact. Validation stays the
// zod schema's (nothing accepted or produced changes); only the JSON Schema text clients and models read is smaller.
// Every agent session lists these on every tools/list, so each byte here is paid in every agent's context.
import * as z from 'zod/v4';

type Json = { [key: string]: unknown };
/** A Standard Schema validation result. */
type Validated =
  | { readonly value: unknown; readonly issues?: undefined }
  | { readonly issues: readonly { readonly message: string }[] };

/** A Standard Schema (validate + JSON Schema), the shape the MCP SDK registers: zod's checks, our compact JSON. */
export interface PublishedSchema {
  readonly '~standard': {
    readonly version: 1;
    readonly vendor: string;
    readonly validate: (value: unknown) => Validated | Promise<Validated>;
    readonly jsonSchema: { readonly input: (options?: unknown) => Json; readonly output: (options?: unknown) => Json };
  };
}

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Input schemas keep the constraints a caller can meet and the description of each argument; `$schema` goes, and so
 * do descriptions below an argument (an array item's), which repeat what the argument already says. The server still
 * validates with the full zod schema.
 */
function compactInput(s: unknown, depth: number): unknown {
  if (Array.isArray(s)) return s.map((x) => compactInput(x, depth));
  if (!isObject(s)) return s;
  const out: Json = {};
  for (const [k, v] of Object.entries(s)) {
    if (k === '$schema' || (k === 'description' && depth > 1) || unreachable(k, v)) continue;
    out[k] =
      k === 'properties' && isObject(v)
        ? mapValues(v, (x) => compactInput(x, depth + 1))
        : compactInput(v, k === 'items' ? depth + 1 : depth);
  }
  return out;
}

/** Bounds no honest call comes near (4,096-character paths, a millionth page) guard the server, not the caller. */
const unreachable = (k: string, v: unknown): boolean =>
  (k === 'maxLength' && typeof v === 'number' && v >= 4096) ||
  (k === 'maximum' && typeof v === 'number' && v >= 1_000_000);

/**
 * Output schemas name each top-level field that is always present, with its type. Optional fields, nested shapes,
 * enums and descriptions are left to SPEC §3: a program reads them from structuredContent, a model from the text
 * block, and neither needs them repeated in every tools/list. The schema stays true of every answer.
 */
function compactOutput(s: Json): Json {
  const props = isObject(s['properties']) ? s['properties'] : {};
  const required = Array.isArray(s['required']) ? s['required'].filter((k): k is string => typeof k === 'string') : [];
  // Optional fields (paging, line windows, the operator's parents) are still allowed: no additionalProperties here.
  const always: Json = {};
  for (const k of required) if (isObject(props[k])) always[k] = typeOnly(props[k]);
  return { type: 'object', properties: always, required };
}

function typeOnly(p: Json): Json {
  if (p['type'] !== undefined) return { type: p['type'] };
  // A union (get_files' ok/error items) has no one type at its root: each branch's type, once.
  const branches = Array.isArray(p['anyOf']) ? p['anyOf'] : Array.isArray(p['oneOf']) ? p['oneOf'] : [];
  const types = [
    ...new Set(branches.flatMap((b) => (isObject(b) && typeof b['type'] === 'string' ? [b['type']] : []))),
  ];
  return types.length === 1 ? { type: types[0] } : types.length ? { type: types } : {};
}

function mapValues(o: Json, f: (v: unknown) => unknown): Json {
  const out: Json = {};
  for (const [k, v] of Object.entries(o)) out[k] = f(v);
  return out;
}

/** The published form of an input (`io: 'input'`) or output schema; converted once, at tool definition. */
export function publish(schema: z.ZodType, io: 'input' | 'output'): PublishedSchema {
  const full = z.toJSONSchema(schema, { io, target: 'draft-2020-12' }) as Json;
  const json = io === 'input' ? (compactInput(full, 0) as Json) : compactOutput(full);
  const std = schema['~standard'];
  return {
    '~standard': {
      version: 1,
      vendor: 'git-blinder',
      validate: (value) => std.validate(value),
      jsonSchema: { input: () => json, output: () => json },
    },
  };
}
