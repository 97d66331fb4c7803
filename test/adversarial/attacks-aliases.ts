// Issue 26: the ChatGPT connector aliases under attack. `fetch` mirrors every get_file attack (each hostile, private,
// look-alike, glob and hidden path, sealed into an id the server could have made, must answer byte for byte like
// get_file for that path), `search` mirrors search_code's (no hit from hidden files; a hidden-only word answers like
// a word nobody holds; the same refusals), and ids are attacked directly (forged, edited, foreign, replayed).
import type { Agent } from '../support/server.js';
import { sameAnswers, whole, type Ctx } from './context.js';
import { callTool, check, noLeak, redact, type Attack, type CallOut } from './harness.js';
import { GLOBS, HOSTILE, LOOKALIKES, PRIVATE } from './attacks-paths.js';
import { HIDDEN_WORDS } from './attacks-search.js';

const bytes = (r: CallOut) =>
  JSON.stringify({ isError: r.isError ?? false, text: r.text, structured: r.structured ?? null });

/** Attacks on `search` and `fetch` (perimeter `dr`: app's window with the aliases named). */
export function aliasAttacks(ctx: Ctx): Attack[] {
  const { fx } = ctx;
  const out: Attack[] = [];
  const agents = new Map<string, Promise<Agent>>();
  const agent = (path = '/mcp/dr', key = fx.keys.dr): Promise<Agent> => {
    const k = `${path} ${key}`;
    if (!agents.has(k)) agents.set(k, fx.srv.connect(path, 'legacy', { authorization: `Bearer ${key}` }));
    return agents.get(k) as Promise<Agent>;
  };
  const mint = (path: string, place: { who?: string; repo?: string; branch?: string } = {}) =>
    fx.seal.sealId(
      JSON.stringify({
        v: 1,
        who: place.who ?? 'agent:dr',
        repo: place.repo ?? fx.repo,
        branch: place.branch ?? 'main',
        path,
      }),
    );
  const call = async (tool: string, args: Record<string, unknown>) => callTool(await agent(), tool, args);

  // fetch ≡ get_file, for every path the get_file attacks use.
  const paths: [string, string][] = [
    ...HOSTILE.map(([, name, p]) => [name, p] as [string, string]),
    ...LOOKALIKES.map(
      ([, name, dir]) => [name, `${dir}/${dir === 'app2' ? 'leak.ts' : 'main.ts'}`] as [string, string],
    ),
    ...GLOBS.map((g) => [`glob ${g}`, g] as [string, string]),
    ...PRIVATE.map((p) => [`private ${p}`, p] as [string, string]),
    ...[
      'app/link-out',
      'app/link-abs',
      'app/link-up',
      'app/link-dir',
      'app/link-env',
      'app/links/only-bad',
      'app/link-dir/keys.txt',
    ].map((p) => [`symlink ${p}`, p] as [string, string]),
    ...[
      'app/vendor/lib',
      'app/vendor/lib/README.md',
      '.gitmodules',
      'docs/internal/plan.md',
      'docs/notes.txt',
      'app/deploy.env',
      'README.md',
      'app/nope.ts',
    ].map((p) => [`hidden or missing ${p}`, p] as [string, string]),
  ];
  // A path over get_file's 4096-character bound is refused by get_file's schema; no search ever mints its id.
  for (const [name, path] of paths.filter(([, p]) => p.length <= 4096)) {
    out.push({
      category: 'alias-fetch',
      name: `fetch of a sealed id for ${name}: get_file's answer, byte for byte`,
      run: async () => {
        const f = await call('fetch', { id: mint(path) });
        const g = await call('get_file', { path });
        noLeak(fx, whole(f), { path });
        if (g.isError)
          check(bytes(f) === bytes(g), `fetch ${bytes(f).slice(0, 300)}\nget_file ${bytes(g).slice(0, 300)}`);
        else
          check(
            !f.isError && f.structured.text === g.structured.content,
            `fetch differs from get_file on readable ${path}: ${f.text.slice(0, 200)}`,
          );
      },
    });
  }

  // Ids that do not open here: all answer like a made-up one, naming nothing.
  const madeUp = 'gbi1.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';
  const ids: [string, () => Promise<string>][] = [
    ['an id sealed for another perimeter', async () => mint('secret/keys.txt', { who: 'agent:other' })],
    ['an id sealed for the same path on another perimeter', async () => mint('app/main.ts', { who: 'agent:app' })],
    [
      'an id sealed for another branch of the same perimeter',
      async () => mint('app/main.ts', { branch: 'feature/ok' }),
    ],
    ['an id sealed for a hidden branch', async () => mint('app/branch-only.ts', { branch: 'feature-hidden' })],
    ['an id sealed for another repository', async () => mint('app/main.ts', { repo: 'acme/other' })],
    ['a change cursor', async () => String((await call('changes_since', {})).structured?.cursor ?? 'gbc1.x')],
    [
      'a JSON payload in clear',
      async () => JSON.stringify({ v: 1, who: 'agent:dr', repo: fx.repo, branch: 'main', path: 'secret/keys.txt' }),
    ],
    [
      'a base64url JSON payload with the id prefix',
      async () =>
        `gbi1.${Buffer.from(JSON.stringify({ v: 1, who: 'agent:dr', repo: fx.repo, branch: 'main', path: 'secret/keys.txt' })).toString('base64url')}`,
    ],
    [
      'a real id with one byte flipped',
      async () => {
        const raw = Buffer.from(mint('app/main.ts').slice(5), 'base64url');
        raw[raw.length - 20] = (raw[raw.length - 20] ?? 0) ^ 1;
        return `gbi1.${raw.toString('base64url')}`;
      },
    ],
    [
      'a real id with its IV from another id',
      async () => {
        const a = Buffer.from(mint('app/main.ts').slice(5), 'base64url');
        const b = Buffer.from(mint('secret/keys.txt').slice(5), 'base64url');
        b.set(a.subarray(0, 12), 0);
        return `gbi1.${b.toString('base64url')}`;
      },
    ],
    ['a path', async () => 'secret/keys.txt'],
    ['the bare prefix', async () => 'gbi1.'],
    ['a NUL', async () => 'gbi1.\u0000'],
  ];
  for (const [label, make] of ids) {
    out.push({
      category: 'alias-id',
      name: `fetch with ${label}: answers like a made-up id`,
      run: async () => {
        const id = await make();
        const r = await call('fetch', { id });
        noLeak(fx, whole(r), {});
        const m = await call('fetch', { id: madeUp });
        check(bytes(r) === bytes(m), `${bytes(r).slice(0, 300)}\n${bytes(m).slice(0, 300)}`);
      },
    });
  }
  out.push({
    category: 'alias-id',
    name: 'fetch with a 9000-character id: refused by the schema, nothing leaks',
    run: async () => {
      const r = await call('fetch', { id: 'A'.repeat(9000) });
      check(r.isError === true, r.text.slice(0, 200));
      noLeak(fx, whole(r), {});
    },
  });

  // search ≡ search_code.
  for (const query of HIDDEN_WORDS) {
    out.push({
      category: 'alias-search',
      name: `search ${JSON.stringify(query)}: no result from a hidden file, privacy zone or another branch`,
      run: async () => {
        const r = await call('search', { query });
        check(!r.isError, r.text);
        noLeak(fx, whole(r), { query });
        for (const x of r.structured.results as { title: string; url: string }[]) {
          check(
            /^app\/|^docs\/[^/]+\.md$/.test(x.title) && !/\.env|id_rsa|\.pem|credentials/i.test(x.title),
            `result ${x.title}`,
          );
        }
      },
    });
  }
  out.push({
    category: 'alias-search',
    name: 'search: a word only hidden files hold answers byte-for-byte like a word nobody holds',
    run: async () => {
      const a = await agent();
      await sameAnswers(ctx, [
        { tool: 'search', args: { query: 'CANARY_SECRET_KEYS' }, mask: ['CANARY_SECRET_KEYS'], agent: a },
        { tool: 'search', args: { query: 'NOPE_NOWHERE_00000' }, mask: ['NOPE_NOWHERE_00000'], agent: a },
      ]);
    },
  });
  out.push({
    category: 'alias-search',
    name: 'search: the results are the files search_code finds, and a repeated search is byte-identical',
    run: async () => {
      const r = await call('search', { query: 'export' });
      const code = await call('search_code', { query: 'export', max_results: 200 });
      const titles = (r.structured.results as { title: string }[]).map((x) => x.title);
      check(
        JSON.stringify(titles) ===
          JSON.stringify([...new Set((code.structured.matches as { path: string }[]).map((m) => m.path))]),
        titles.join(','),
      );
      check(bytes(await call('search', { query: 'export' })) === bytes(r), 'a repeated search differs');
    },
  });
  for (const [label, query] of [
    ['newline', 'a\nCANARY'],
    ['NUL', 'a\u0000b'],
    ['escape character', '\u001b[31m'],
    ['513 characters', 'x'.repeat(513)],
    ['empty', ''],
  ] as const) {
    out.push({
      category: 'alias-search',
      name: `search with a query holding ${label}: search_code's refusal`,
      run: async () => {
        const r = await call('search', { query });
        const c = await call('search_code', { query });
        check(r.isError === true, r.text.slice(0, 200));
        noLeak(fx, whole(r), { query });
        // Schema refusals name their tool ("Invalid arguments for tool search"); everything else is the same text.
        const named = (x: CallOut) => bytes(x).replace(/tool (search_code|search)\b/g, 'tool T');
        check(named(r) === named(c), `${bytes(r).slice(0, 200)}\n${bytes(c).slice(0, 200)}`);
      },
    });
  }
  for (const [label, path, key, tool] of [
    ['a perimeter that does not name them (app)', '/mcp/app', fx.keys.app, 'search'],
    ['a perimeter that does not name them (app), fetch', '/mcp/app', fx.keys.app, 'fetch'],
    ['a get_file-only perimeter (narrow)', '/mcp/narrow', fx.keys.narrow, 'fetch'],
  ] as const) {
    out.push({
      category: 'alias-tools',
      name: `${tool} on ${label}: reads as an unknown tool`,
      run: async () => {
        const a = await agent(path, key);
        const r = await callTool(
          a,
          tool,
          tool === 'search'
            ? { query: 'export' }
            : { id: mint('app/main.ts', { who: path === '/mcp/app' ? 'agent:app' : 'agent:narrow' }) },
        );
        const u = await callTool(a, 'no_such_tool', tool === 'search' ? { query: 'export' } : { id: 'x' });
        check(r.isError === true, r.text.slice(0, 200));
        check(
          redact(bytes(r), tool) === redact(bytes(u), 'no_such_tool'),
          `${bytes(r).slice(0, 200)}\n${bytes(u).slice(0, 200)}`,
        );
      },
    });
  }
  return out;
}
