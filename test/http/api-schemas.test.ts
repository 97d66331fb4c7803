// The `/api` contract under review, like the tools' published schemas (test/registry/__toolsnaps__): the JSON Schema
// of every response in src/http/api/schema.ts is kept in __apisnaps__, one file per route, the big shared parts
// (a proposal, its change, a perimeter) once each and referenced by name. A change to an answer's shape fails here
// until the snapshots are updated on purpose (`npx vitest run test/http/api-schemas.test.ts -u`) and the diff is
// reviewed: the CLI of the previous release parses with the old shape.
import { readdir } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import * as z from 'zod/v4';
import { Proposal, ProposalChange } from '../../src/core/index.js';
import { API, ApiErrorBody, PerimeterView } from '../../src/http/api/schema.js';

/** `DELETE /perimeters/:id/branches/*name` → `DELETE-perimeters-id-branches-name`. */
const idOf = (route: string) => route.replace(/[^A-Za-z0-9]+/g, '-').replace(/-+$/, '');

// One registry, converted once: a registered schema becomes its own file and a `$ref` wherever it is used. Routes
// are registered as clones, since several routes answer with the same schema object.
const registry = z.registry<{ id: string }>();
for (const [id, schema] of Object.entries({ Proposal, ProposalChange, PerimeterView, error: ApiErrorBody }))
  registry.add(schema, { id });
for (const [route, schema] of Object.entries(API)) registry.add(schema.clone(), { id: idOf(route) });
const { schemas } = z.toJSONSchema(registry, { io: 'output', uri: (id) => `${id}.json` });

describe('/api response schemas', () => {
  it.each(Object.keys(schemas))('%s matches its reviewed snapshot', async (id) => {
    await expect(`${JSON.stringify(schemas[id], null, 2)}\n`).toMatchFileSnapshot(`__apisnaps__/${id}.json`);
  });

  it('one snapshot per route (and per shared part): a removed route takes its snapshot with it', async () => {
    expect(Object.keys(schemas)).toEqual(expect.arrayContaining(Object.keys(API).map(idOf)));
    expect(Object.keys(schemas)).toHaveLength(Object.keys(API).length + 4);
    // A missing snapshot fails above (and is written by -u); a snapshot no schema claims fails here.
    const files = await readdir(new URL('./__apisnaps__/', import.meta.url));
    expect(files.filter((f) => !Object.hasOwn(schemas, f.replace(/\.json$/, '')))).toEqual([]);
  });
});
