import { describe, expect, it } from 'vitest';
import {
  bindAgent,
  decide,
  isExposed,
  ROOT_BINDING,
  type AgentBinding,
  type PathRef,
  type Perimeter,
  type ToolPolicy,
  type Verdict,
} from '../../src/core/index.js';

const PERIMETER: Perimeter = {
  id: 'infra-team',
  repo: 'acme/app',
  read: ['infra/**', 'docs/*.md'],
  write: ['infra/modules/**', 'docs/*.md'],
  default_branch: 'main',
  branches: ['main', 'feature/x'],
  tools: ['get_file', 'get_files', 'get_tree', 'push_files', 'list_branches', 'compare', 'root_tool'],
};

interface Args {
  paths: unknown[];
  dirs?: unknown[];
  repo?: string;
  ref?: string;
}

function tool(name: string, access: 'read' | 'write', pathMode: 'all' | 'each', agentSurface = true): ToolPolicy<Args> {
  const role = access === 'write' ? 'write' : 'file';
  return {
    name,
    access,
    surfaces: agentSurface ? ['agent', 'root'] : ['root'],
    pathMode,
    paths: (a): PathRef[] => [
      ...a.paths.map((path) => ({ path, role }) as const),
      ...(a.dirs ?? []).map((path) => ({ path, role: 'dir' }) as const),
    ],
    rootTarget: (a) => ({ repo: a.repo ?? 'root/repo', ref: a.ref ?? 'root-ref' }),
  };
}

const GET_FILE = tool('get_file', 'read', 'all');
const GET_FILES = tool('get_files', 'read', 'each');
const GET_TREE = tool('get_tree', 'read', 'all');
const PUSH = tool('push_files', 'write', 'all');

function agent(perimeter: Perimeter = PERIMETER, branch?: string): AgentBinding {
  const b = bindAgent(perimeter, branch);
  if (!b.ok) throw new Error('test perimeter must bind');
  return b.value;
}

function hiddenOf(v: Verdict): string[] {
  if (v.kind !== 'allow') throw new Error(`expected allow, got ${v.kind}`);
  return [...v.hidden].sort();
}

describe('decide: single-object reads (pathMode all)', () => {
  const b = agent();
  it.each([
    ['infra/main.tf', 'allow'],
    ['infra/.secret', 'allow'],
    ['docs/a.md', 'allow'],
    ['docs/sub/a.md', 'invisible'],
    ['src/index.ts', 'invisible'],
    ['infra2/x', 'invisible'],
    ['Infra/main.tf', 'invisible'],
    ['', 'invisible'],
    ['docs/../infra/main.tf', 'invalid'],
    ['/infra/main.tf', 'invalid'],
    ['infra\\main.tf', 'invalid'],
    ['infra%2Fmain.tf', 'invalid'],
    [42, 'invalid'],
  ] as [unknown, Verdict['kind']][])('%j → %s', (path, kind) => {
    expect(decide(b, GET_FILE, { paths: [path] }).kind).toBe(kind);
  });

  it('allows with the binding as target, whatever the arguments say', () => {
    const v = decide(b, GET_FILE, { paths: ['infra/main.tf'], repo: 'evil/other', ref: 'secret-branch' });
    expect(v).toEqual({ kind: 'allow', target: { repo: 'acme/app', ref: 'main' }, hidden: new Set() });
  });

  it('one hidden path among several makes the whole call invisible', () => {
    expect(decide(b, GET_FILE, { paths: ['infra/a', 'src/b'] })).toEqual({ kind: 'invisible' });
  });

  it('an invisible path answers exactly like a path that cannot exist', () => {
    const hidden = decide(b, GET_FILE, { paths: ['src/secret.ts'] });
    const missing = decide(b, GET_FILE, { paths: ['no/such/thing'] });
    expect(hidden).toEqual(missing);
    expect(JSON.stringify(hidden)).not.toContain('src');
  });

  it('directories are judged on whether they could hold a readable file', () => {
    expect(decide(b, GET_TREE, { paths: [], dirs: [''] }).kind).toBe('allow');
    expect(decide(b, GET_TREE, { paths: [], dirs: ['infra'] }).kind).toBe('allow');
    expect(decide(b, GET_TREE, { paths: [], dirs: ['docs'] }).kind).toBe('allow');
    expect(decide(b, GET_TREE, { paths: [], dirs: ['docs/sub'] }).kind).toBe('invisible');
    expect(decide(b, GET_TREE, { paths: [], dirs: ['src'] }).kind).toBe('invisible');
    expect(decide(b, GET_TREE, { paths: [], dirs: ['infrastructure'] }).kind).toBe('invisible');
  });

  it('a call with no paths is allowed', () => {
    expect(decide(b, GET_FILE, { paths: [] }).kind).toBe('allow');
  });
});

describe('decide: multi-file reads (pathMode each)', () => {
  const b = agent();
  it('hides exactly the unreadable paths and allows the call', () => {
    const v = decide(b, GET_FILES, { paths: ['infra/a', 'src/b', 'docs/c.md', 'docs/x/d.md', '.env'] });
    expect(hiddenOf(v)).toEqual(['.env', 'docs/x/d.md', 'src/b']);
  });

  it('allows with nothing hidden when every path is readable', () => {
    expect(hiddenOf(decide(b, GET_FILES, { paths: ['infra/a', 'docs/c.md'] }))).toEqual([]);
  });

  it('all hidden is still allow (each path answered as missing), never deny', () => {
    expect(hiddenOf(decide(b, GET_FILES, { paths: ['src/a', 'src/b'] }))).toEqual(['src/a', 'src/b']);
  });

  it('one invalid path makes the whole call invalid', () => {
    const v = decide(b, GET_FILES, { paths: ['infra/a', 'a/../b'] });
    expect(v.kind).toBe('invalid');
  });
});

describe('decide: writes are all or nothing', () => {
  const b = agent();

  it('allows when every path is writable', () => {
    expect(decide(b, PUSH, { paths: ['infra/modules/vpc/main.tf', 'docs/new.md'] })).toEqual({
      kind: 'allow',
      target: { repo: 'acme/app', ref: 'main' },
      hidden: new Set(),
    });
  });

  it("one out-of-scope path refuses the whole call and names only the agent's own paths", () => {
    const v = decide(b, PUSH, { paths: ['infra/modules/ok.tf', 'infra/prod/main.tf', 'docs/ok.md'] });
    expect(v.kind).toBe('deny');
    if (v.kind !== 'deny') return;
    expect(v.reason).toContain('"infra/prod/main.tf"');
    expect(v.reason).not.toContain('infra/modules/ok.tf');
    expect(v.reason).not.toContain('docs/ok.md');
    expect(v.reason).toContain('Nothing was written');
    for (const glob of [...PERIMETER.read, ...PERIMETER.write]) expect(v.reason).not.toContain(glob);
    expect(v.reason).not.toContain('**');
    expect(v.reason).not.toContain(PERIMETER.id);
  });

  it("names every refused path, in the agent's order", () => {
    const v = decide(b, PUSH, { paths: ['src/a.ts', 'infra/modules/ok', 'src/b.ts'] });
    expect(v.kind).toBe('deny');
    if (v.kind === 'deny') {
      expect(v.reason).toMatch(/"src\/a\.ts", "src\/b\.ts" are outside/);
    }
  });

  it('a write to a readable but not writable path is refused', () => {
    expect(decide(b, PUSH, { paths: ['infra/main.tf'] }).kind).toBe('deny');
  });

  it('refuses a write to the root path', () => {
    expect(decide(b, PUSH, { paths: [''] }).kind).toBe('deny');
  });

  it('an invalid path is invalid before any write is judged', () => {
    expect(decide(b, PUSH, { paths: ['src/a', 'infra/modules/../../etc'] }).kind).toBe('invalid');
  });

  it('a write refusal wins over hidden read paths in the same call', () => {
    const v = decide(b, PUSH, { paths: ['src/a'], dirs: ['src'] });
    expect(v.kind).toBe('deny');
  });

  it('prefix look-alikes of a writable directory are refused', () => {
    for (const p of ['infra/modules2/x', 'infra/modules.bak/x', 'Infra/modules/x', 'infra/modules']) {
      expect(decide(b, PUSH, { paths: [p] }).kind).toBe('deny');
    }
  });
});

describe('decide: exposure', () => {
  it('an ungranted tool is invisible whatever its arguments', () => {
    const b = agent({ ...PERIMETER, tools: ['get_file'] });
    expect(decide(b, GET_FILES, { paths: ['infra/a'] })).toEqual({ kind: 'invisible' });
    expect(decide(b, PUSH, { paths: ['src/a'] })).toEqual({ kind: 'invisible' });
    expect(decide(b, PUSH, { paths: ['../x'] })).toEqual({ kind: 'invisible' });
  });

  it('an undefined tool list grants the agent catalogue', () => {
    const { tools: _unused, ...rest } = PERIMETER;
    const b = agent(rest);
    expect(b.granted).toBeUndefined();
    expect(decide(b, GET_FILE, { paths: ['infra/a'] }).kind).toBe('allow');
  });

  it('an empty tool list grants nothing', () => {
    const b = agent({ ...PERIMETER, tools: [] });
    expect(decide(b, GET_FILE, { paths: ['infra/a'] })).toEqual({ kind: 'invisible' });
  });

  it.each([['list_branches'], ['compare']])('root-only tool %s is invisible to agents even when granted', (name) => {
    const t = tool(name, 'read', 'all', false);
    expect(decide(agent(), t, { paths: [] })).toEqual({ kind: 'invisible' });
    expect(isExposed(agent(), t)).toBe(false);
    const { tools: _unused, ...ungranted } = PERIMETER;
    expect(isExposed(agent(ungranted), t)).toBe(false);
    expect(decide(ROOT_BINDING, t, { paths: [] }).kind).toBe('allow');
  });

  it('a tool that is not for the agent surface is invisible even when granted', () => {
    const t = tool('root_tool', 'read', 'all', false);
    expect(decide(agent(), t, { paths: ['infra/a'] })).toEqual({ kind: 'invisible' });
  });

  it('tool names are matched exactly', () => {
    const b = agent({ ...PERIMETER, tools: ['get_file'] });
    expect(isExposed(b, { name: 'GET_FILE', surfaces: ['agent', 'root'] })).toBe(false);
    expect(isExposed(b, { name: 'get_file ', surfaces: ['agent', 'root'] })).toBe(false);
  });
});

describe('decide: root binding', () => {
  it('allows everything, with repo and ref from the arguments', () => {
    expect(decide(ROOT_BINDING, PUSH, { paths: ['src/anything', '.env'], repo: 'o/r', ref: 'dev' })).toEqual({
      kind: 'allow',
      target: { repo: 'o/r', ref: 'dev' },
      hidden: new Set(),
    });
    expect(decide(ROOT_BINDING, GET_FILE, { paths: ['secret/x'] }).kind).toBe('allow');
  });

  it('still refuses malformed paths', () => {
    expect(decide(ROOT_BINDING, GET_FILE, { paths: ['../x'] }).kind).toBe('invalid');
  });
});

describe('bindAgent', () => {
  it('binds the default branch when none is given', () => {
    const b = agent();
    expect(b.branch).toBe('main');
    expect(decide(b, GET_FILE, { paths: ['infra/a'] })).toMatchObject({ target: { ref: 'main' } });
  });

  it('binds an allowlisted branch', () => {
    const b = agent(PERIMETER, 'feature/x');
    expect(decide(b, GET_FILE, { paths: ['infra/a'] })).toMatchObject({
      target: { repo: 'acme/app', ref: 'feature/x' },
    });
  });

  it.each([['dev'], ['Main'], ['main '], [''], ['refs/heads/main'], ['feature'], ['feature/x/y'], ['../main']])(
    'a non-allowlisted branch %j is not_found, with the same message as any other',
    (branch) => {
      expect(bindAgent(PERIMETER, branch)).toEqual({ ok: false, code: 'not_found', message: 'not found' });
    },
  );
});

describe('isExposed: the requirement table (issue 22)', () => {
  const pr = { name: 'get_pull_request', surfaces: ['agent'] as const, requires: 'pulls' as const };
  const ci = { name: 'get_pull_request_status', surfaces: ['agent'] as const, requires: 'ci' as const };
  const bound = (pulls?: Record<string, unknown>) => {
    const { tools: _t, ...rest } = PERIMETER;
    const b = bindAgent({ ...rest, ...(pulls ? { pulls } : {}) } as never, undefined);
    if (!b.ok) throw new Error(b.message);
    return b.value;
  };
  it('lists PR tools only where pulls is set, the CI one unless ci is false, never on root', () => {
    expect(isExposed(bound(), pr)).toBe(false);
    expect(isExposed(bound({}), pr)).toBe(true);
    expect(isExposed(bound({}), ci)).toBe(true);
    expect(isExposed(bound({ ci: false }), ci)).toBe(false);
    expect(isExposed(bound({ ci: false }), pr)).toBe(true);
    expect(isExposed(ROOT_BINDING, pr)).toBe(false);
  });
  it('drops a base that is no longer allowlisted, and defaults to the perimeter default branch', () => {
    expect(bound({ bases: ['nope'] }).pulls?.bases).toEqual([PERIMETER.default_branch]);
    expect(bound({}).pulls).toEqual({ bases: [PERIMETER.default_branch], draft: true, maxOpen: 5, ci: true });
  });
});
