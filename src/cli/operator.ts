import { assertNever } from '../core/index.js';
import type { ApiBody, PerimeterView, StoreStatus } from '../http/api/schema.js';
import { ALL_TOOLS } from '../registry/index.js';
import { apiClient, CliError, type ApiClient } from './client.js';
import { readStored } from './ops-token.js';
import { keyHint } from './hints.js';
import { clean, jsonText, table } from './table.js';

export interface OpsOptions {
  url: string;
  token?: string;
  stateDir?: string;
  json?: boolean;
}

type Out = (line: string) => void;

/** The operator's token: --token-file (already read into `o.token`), GIT_BLINDER_OPS_TOKEN, GITHUB_TOKEN, then the one the server stored in the state dir. */
export async function opsClient(o: OpsOptions, env: NodeJS.ProcessEnv, stateDir: string): Promise<ApiClient> {
  const token = o.token ?? env.GIT_BLINDER_OPS_TOKEN ?? env.GITHUB_TOKEN ?? (await readStored(stateDir));
  // With no token anywhere, the usual cause is a server whose ops token is its GitHub token (nothing is stored then).
  const missing =
    `No ops token in this shell: no --token-file, no GIT_BLINDER_OPS_TOKEN, no GITHUB_TOKEN, and none stored in ${stateDir}. ` +
    'A server started with a GitHub token uses that token as its ops token and stores none: set GITHUB_TOKEN (or ' +
    'GIT_BLINDER_OPS_TOKEN) to the same value here, or pass --token-file.';
  return apiClient(o.url, token, token === undefined ? missing : undefined);
}

// The one exit for operator output: agent-written text (messages, names, paths) never reaches the terminal raw.
const print = (out: Out, json: boolean | undefined, value: unknown, human: () => string) =>
  out(json ? jsonText(value, 2) : clean(human(), { lines: true }));

/** `git-blinder tools`: the catalogue, from the registry itself (no server needed). */
export function printTools(out: Out, json: boolean | undefined): void {
  const surfaceOf = (t: (typeof ALL_TOOLS)[number]): string => {
    if (t.aliasOf !== undefined) return `agent (alias of ${t.aliasOf}; only where a perimeter's tools name it)`;
    const agent = t.surfaces.includes('agent');
    const root = t.surfaces.includes('root') ? '+root' : '';
    if (!agent) return 'root only';
    switch (t.requires) {
      case undefined:
        return `agent${root}`;
      case 'worktree':
        return `agent (checked-out branch)${root}`;
      case 'proposals':
        return `agent (approval perimeters, checked-out branches)${root}`;
      case 'pulls':
        return `agent (perimeters with pulls)${root}`;
      case 'ci':
        return `agent (perimeters with pulls and ci)${root}`;
      case 'write':
        return `agent (perimeters with a write scope)${root}`;
      default:
        return assertNever(t.requires);
    }
  };
  const rows = ALL_TOOLS.map((t) => ({
    name: t.name,
    surface: surfaceOf(t),
    access: t.access,
    description: t.description,
  }));
  print(out, json, { tools: rows }, () =>
    table(
      ['TOOL', 'SURFACE', 'ACCESS', 'DESCRIPTION'],
      rows.map((r) => [r.name, r.surface, r.access, r.description]),
    ),
  );
}

// The human views carry the whole policy (issue 25): an operator must see at a glance whether a perimeter writes
// without approval, what it hides beyond the built-in zones, what it may write anyway, and how many keys open it.
const originOf = (p: PerimeterView): string => p.origin ?? 'runtime';
const approvalOf = (p: PerimeterView): string => p.approval?.push_files ?? 'none';
const limitsOf = (p: PerimeterView): string =>
  Object.entries(p.limits ?? {})
    .map(([k, v]) => `${k}=${String(v)}`)
    .join(', ');
const yesNo = (b: boolean | undefined) => (b ? 'yes' : 'no');

/** The policy beyond read/write in one cell: only what differs from the defaults, `-` when nothing does. */
const extrasOf = (p: PerimeterView): string =>
  [
    p.private?.length ? `private=${p.private.join(',')}` : '',
    p.allow_protected?.length ? `allow_protected=${p.allow_protected.join(',')}` : '',
    p.allow_secrets ? 'allow_secrets' : '',
    p.allow_binary ? 'allow_binary' : '',
    p.limits && Object.keys(p.limits).length ? `limits: ${limitsOf(p)}` : '',
  ]
    .filter(Boolean)
    .join('; ') || '-';

const perimeterRows = (ps: PerimeterView[]) =>
  table(
    ['ID', 'ORIGIN', 'REPO', 'READ', 'WRITE', 'APPROVAL', 'KEYS', 'BRANCHES', 'TOOLS', 'ALSO'],
    ps.map((p) => [
      p.id,
      originOf(p),
      p.repo,
      p.read.join(',') || '-',
      p.write.join(',') || '-',
      p.write.length ? approvalOf(p) : '-',
      String(p.keys.length),
      p.branches.join(','),
      p.tools?.join(',') ?? '(agent catalogue)',
      extrasOf(p),
    ]),
  );

function showPerimeter(p: PerimeterView): string {
  const keys = p.keys.length;
  const approval = approvalOf(p);
  return [
    `id:              ${p.id}`,
    `origin:          ${originOf(p) === 'config' ? 'config (re-applied at every start; removed when the config drops it)' : 'runtime (kept until deleted)'}`,
    `repo:            ${p.repo}`,
    `read:            ${p.read.join(', ') || '(nothing)'}`,
    `write:           ${p.write.join(', ') || '(nothing)'}`,
    `approval:        push_files ${approval}${p.write.length ? (approval === 'required' ? ' (pushes wait for a person)' : ' (pushes land at once, unreviewed)') : ''}`,
    `tools:           ${p.tools?.join(', ') ?? '(agent catalogue)'}`,
    `default branch:  ${p.default_branch}`,
    `branches:        ${p.branches.join(', ')}`,
    `private:         ${p.private?.join(', ') || '(built-in privacy zones only)'}`,
    `allow_protected: ${p.allow_protected?.join(', ') || '(none)'}`,
    `allow_secrets:   ${yesNo(p.allow_secrets)}`,
    `allow_binary:    ${yesNo(p.allow_binary)}`,
    `limits:          ${limitsOf(p) || '(server defaults)'}`,
    `keys:            ${keys}${keys ? ` (git-blinder perimeter key list ${p.id})` : ' (none issued)'}`,
    ...p.urls.map((u, i) => `${i === 0 ? 'agent URLs:      ' : '                 '}${u}`),
  ].join('\n');
}

/** The store block of /health: adapter, whether it answers, the instances alive on it. */
function storeLines(st: StoreStatus | undefined): string[] {
  // A server composed without a shared store (the test server) reports none: nothing to show.
  if (!st) return [];
  const silent = st.health.kind === 'silent' ? st.health.silentMs : undefined;
  const health =
    st.health.kind === 'live'
      ? 'live'
      : silent === undefined
        ? `SILENT (the store could not be asked${st.error ? `: ${st.error}` : ''}; agent calls refused)`
        : `SILENT for ${Math.round(silent / 1000)} s (agent calls refused)`;
  return [
    '',
    `store: ${st.kind}, ${health}`,
    table(
      ['INSTANCE', 'VERSION', 'LAST HEARTBEAT'],
      st.instances.map((i) => [i.id, i.version, i.lastSeen]),
    ),
  ];
}

/** Per perimeter, the tools an agent's tools/list gives on each allowlisted branch (branches with the same list share a row). */
function toolLines(ps: ApiBody<'GET /health'>['perimeters']): string[] {
  const rows: string[][] = [];
  for (const p of ps) {
    const byList = new Map<string, string[]>();
    for (const [branch, tools] of Object.entries(p.tools)) {
      const k = tools.join(', ');
      byList.set(k, [...(byList.get(k) ?? []), branch]);
    }
    for (const [tools, branches] of byList) rows.push([p.id, branches.join(', '), tools || '(none)']);
  }
  return rows.length ? ['', table(['PERIMETER', 'BRANCHES', 'TOOLS (as tools/list gives them)'], rows)] : [];
}

export const operator = {
  async status(c: ApiClient, out: Out, json?: boolean) {
    const s = await c.call('GET /health', '/health');
    print(out, json, s, () => {
      const { perimeters: ps, upstreams: ups, sessions: ss, audit: a } = s;
      return [
        `git-blinder ${s.version} up ${s.uptime_s} s, state dir ${String(s.state_dir)}`,
        `sessions: ${ss.active} active, ${ss.idle} idle (no request for a minute; closed when the idle timeout passes)`,
        ...(ss.by_agent ?? []).map(
          (a) =>
            `session agent ${a.agent} (${a.perimeter}): ${a.sessions} open on ${a.branches.join(', ') || 'its default branch'}, last request ${a.last_seen}`,
        ),
        ...ups.map(
          (u) =>
            `upstream ${u.kind}: ${u.ok ? 'ok' : 'DOWN'} (${u.detail})${u.rateLimit ? ` rate limit ${u.rateLimit.remaining}/${u.rateLimit.limit}, resets ${u.rateLimit.resetAt}` : ''}`,
        ),
        '',
        a
          ? [
              table(
                ['AUDIT', 'ENTRIES', 'LOST', 'FAILURES', 'SIGNED', 'PATHS', 'FILE', 'LAST ERROR'],
                [
                  // Servers before issue 20 report no `lost`.
                  [
                    a.status,
                    String(a.entries),
                    a.lost === undefined ? '' : String(a.lost),
                    String(a.failures),
                    a.signed ? 'yes' : 'no',
                    a.clear_paths ? 'clear' : 'hashed',
                    a.file,
                    a.last_error ?? '',
                  ],
                ],
              ),
              ...(a.warnings ?? []).map((w) => `audit warning: ${w}`),
            ].join('\n')
          : 'audit: off',
        '',
        table(
          ['PERIMETER', 'REPO', 'SESSIONS'],
          ps.map((p) => [p.id, p.repo, String(p.sessions)]),
        ),
        ...toolLines(ps),
        ...storeLines(s.store),
      ].join('\n');
    });
  },
  async reposList(c: ApiClient, out: Out, json?: boolean) {
    const r = await c.call('GET /repos', '/repos');
    print(out, json, r, () =>
      table(
        ['REPO', 'DEFAULT BRANCH'],
        r.repos.map((x) => [x.name, x.defaultBranch]),
      ),
    );
  },
  async branchesList(c: ApiClient, out: Out, repo: string, json?: boolean) {
    const r = await c.call('GET /branches', `/branches?repo=${encodeURIComponent(repo)}`);
    print(out, json, r, () =>
      table(
        ['BRANCH', 'HEAD'],
        r.branches.map((b) => [b.name, b.sha]),
      ),
    );
  },
  async create(c: ApiClient, out: Out, body: Record<string, unknown>, json?: boolean) {
    const r = await c.call('POST /perimeters', '/perimeters', body);
    // Ends with the next step: a new perimeter has no key, and without one its agents are refused.
    print(
      out,
      json,
      r,
      () =>
        `created perimeter ${r.perimeter.id}\n${showPerimeter(r.perimeter)}${r.perimeter.keys.length ? '' : `\nnext: ${keyHint(r.perimeter.id)}`}`,
    );
  },
  async list(c: ApiClient, out: Out, json?: boolean) {
    const r = await c.call('GET /perimeters', '/perimeters');
    print(out, json, r, () => (r.perimeters.length ? perimeterRows(r.perimeters) : 'no perimeters'));
  },
  async show(c: ApiClient, out: Out, id: string, json?: boolean) {
    const r = await c.call('GET /perimeters/:id', `/perimeters/${encodeURIComponent(id)}`);
    print(out, json, r, () => showPerimeter(r.perimeter));
  },
  async remove(c: ApiClient, out: Out, id: string, json?: boolean) {
    const r = await c.call('DELETE /perimeters/:id', `/perimeters/${encodeURIComponent(id)}`);
    print(out, json, r, () => `deleted perimeter ${id}`);
  },
  async branchList(c: ApiClient, out: Out, id: string, json?: boolean) {
    const r = await c.call('GET /perimeters/:id/branches', `/perimeters/${encodeURIComponent(id)}/branches`);
    print(out, json, r, () =>
      table(
        ['BRANCH', 'DEFAULT'],
        r.branches.map((b) => [b, b === r.default_branch ? 'yes' : '']),
      ),
    );
  },
  async branchAdd(c: ApiClient, out: Out, id: string, branch: string, json?: boolean) {
    const r = await c.call('POST /perimeters/:id/branches', `/perimeters/${encodeURIComponent(id)}/branches`, {
      name: branch,
    });
    const url = r.perimeter.urls.find((u) => u.endsWith(`/${branch.split('/').map(encodeURIComponent).join('/')}`));
    print(out, json, r, () => `added ${branch} to ${id}${url ? `\nagent URL: ${url}` : ''}`);
  },
  async branchRemove(c: ApiClient, out: Out, id: string, branch: string, json?: boolean) {
    const r = await c.call(
      'DELETE /perimeters/:id/branches/*name',
      `/perimeters/${encodeURIComponent(id)}/branches/${branch.split('/').map(encodeURIComponent).join('/')}`,
    );
    print(out, json, r, () => `removed ${branch} from ${id}`);
  },
  async keyIssue(c: ApiClient, out: Out, id: string, agent: string | undefined, json?: boolean) {
    const r = await c.call(
      'POST /perimeters/:id/keys',
      `/perimeters/${encodeURIComponent(id)}/keys`,
      agent === undefined ? {} : { agent },
    );
    print(out, json, r, () =>
      [
        `agent key ${r.id} for ${id} (agent ${r.agent}; shown once, store it now):`,
        r.key,
        '',
        'agents send it as "Authorization: Bearer <key>" to:',
        ...r.urls,
      ].join('\n'),
    );
  },
  async keyList(c: ApiClient, out: Out, id: string, json?: boolean) {
    const r = await c.call('GET /perimeters/:id/keys', `/perimeters/${encodeURIComponent(id)}/keys`);
    print(out, json, r, () =>
      r.keys.length
        ? table(
            ['KEY ID', 'AGENT', 'CREATED'],
            r.keys.map((k) => [k.id, k.agent, k.created_at]),
          )
        : 'no keys',
    );
  },
  async keyRevoke(c: ApiClient, out: Out, id: string, keyOrAgent: string, json?: boolean) {
    const r = await c.call(
      'DELETE /perimeters/:id/keys/:keyId',
      `/perimeters/${encodeURIComponent(id)}/keys/${encodeURIComponent(keyOrAgent)}`,
    );
    print(out, json, r, () => `revoked key ${r.revoked} (agent ${r.agent}) of ${id}`);
  },
  async agentsList(c: ApiClient, out: Out, id: string, json?: boolean) {
    const r = await c.call('GET /perimeters/:id/agents', `/perimeters/${encodeURIComponent(id)}/agents`);
    print(out, json, r, () =>
      r.agents.length
        ? table(
            ['AGENT', 'KEY ID', 'LAST USED', 'SESSIONS', 'CREATED'],
            r.agents.map((a) => [a.agent, a.key_id, a.last_used ?? 'never', String(a.sessions), a.created_at]),
          )
        : 'no agents',
    );
  },
  async commitsList(
    c: ApiClient,
    out: Out,
    id: string,
    q: { branch?: string; path?: string; perPage?: number; page?: number },
    json?: boolean,
  ) {
    const params = new URLSearchParams();
    if (q.branch) params.set('branch', q.branch);
    if (q.path) params.set('path', q.path);
    if (q.perPage !== undefined) params.set('per_page', String(q.perPage));
    if (q.page !== undefined) params.set('page', String(q.page));
    const qs = params.toString();
    const r = await operatorWording(id, () =>
      c.call('GET /perimeters/:id/commits', `/perimeters/${encodeURIComponent(id)}/commits${qs ? `?${qs}` : ''}`),
    );
    print(out, json, r, () =>
      r.commits.length === 0
        ? `no visible commits on ${r.branch ?? 'the default branch'}`
        : table(
            ['SHA', 'DATE', 'AUTHOR', 'MESSAGE'],
            r.commits.map((x) => [x.sha, x.author.date, x.author.name, x.message.split('\n')[0] ?? '']),
          ) + (r.has_more ? '\n(more: use --page)' : ''),
    );
  },
  async commitsShow(
    c: ApiClient,
    out: Out,
    id: string,
    given: string,
    q: { branch?: string | undefined; patch?: boolean | undefined },
    json?: boolean,
  ) {
    const qs = q.branch ? `?branch=${encodeURIComponent(q.branch)}` : '';
    const sha = await shaOf(c, id, given, q.branch);
    const r = await operatorWording(id, () =>
      c.call(
        'GET /perimeters/:id/commits/:sha',
        `/perimeters/${encodeURIComponent(id)}/commits/${encodeURIComponent(sha)}${qs}`,
      ),
    );
    print(out, json, r, () =>
      [
        `commit ${r.sha}`,
        `author ${r.author.name} ${r.author.date}`,
        '',
        r.message,
        '',
        table(
          ['STATUS', 'PATH', '+', '-'],
          r.files.map((f) => [f.status, f.path, String(f.additions), String(f.deletions)]),
        ),
        `omitted (outside the perimeter): ${r.omitted_count}`,
        ...(q.patch ? patchLines(r.files) : []),
        ...(r.truncated ? ['(more visible files than one answer holds; the rest are not shown)'] : []),
      ].join('\n'),
    );
  },
};

/** `commits show --patch`: each visible file's diff as the perimeter's agent would get it (cut to what it may read). */
function patchLines(files: readonly { path: string; status: string; patch?: string | undefined }[]): string[] {
  return files.flatMap((f) => [
    '',
    `--- ${f.path} (${f.status})`,
    f.patch === undefined || f.patch === ''
      ? '(no patch: binary, too large, or no text change)'
      : f.patch.replace(/\n$/, ''),
  ]);
}

// The history routes answer with the agent tools' own hints ("Use list_commits …"); an operator gets the command.
async function operatorWording<T>(id: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (e) {
    if (!(e instanceof CliError)) throw e;
    const m = e.message
      .replace(
        / ?Use list_commits to find commit SHAs\./,
        ` Run "git-blinder perimeter commits list ${id}" to see the visible commits.`,
      )
      .replace(
        / ?(Use|List its parent with) get_tree[^.]*\./,
        ` Run "git-blinder perimeter show ${id}" to see what the perimeter can read.`,
      );
    throw new CliError(m, e.exitCode);
  }
}

// Operators may type the short SHA `commits list` used to print: it is matched against the visible history of the
// branch (newest 1000 commits) and must be unambiguous. Agents keep full SHAs only.
const PREFIX_PAGES = 10;
/** Minimum prefix: shorter ones name too many commits to be worth a search (git's own minimum is 4 too). */
const MIN_PREFIX = 4;

/** The full SHA `given` names: itself when it is one, else the one visible commit its prefix names (usage errors exit 2). */
async function shaOf(c: ApiClient, id: string, given: string, branch: string | undefined): Promise<string> {
  if (/^[0-9a-f]{40}$/i.test(given)) return given.toLowerCase();
  if (!/^[0-9a-f]+$/i.test(given))
    throw new CliError(`"${given}" is not a commit SHA or prefix (hexadecimal digits only).`, 2);
  if (given.length < MIN_PREFIX)
    throw new CliError(`${given} is too short: at least ${MIN_PREFIX} hex characters (or the full SHA).`, 2);
  return resolvePrefix(c, id, given.toLowerCase(), branch);
}

async function resolvePrefix(c: ApiClient, id: string, prefix: string, branch: string | undefined): Promise<string> {
  const found = new Set<string>();
  for (let page = 1; page <= PREFIX_PAGES; page++) {
    const params = new URLSearchParams({ per_page: '100', page: String(page) });
    if (branch) params.set('branch', branch);
    const r = await operatorWording(id, () =>
      c.call('GET /perimeters/:id/commits', `/perimeters/${encodeURIComponent(id)}/commits?${params.toString()}`),
    );
    for (const x of r.commits) if (x.sha.startsWith(prefix)) found.add(x.sha);
    if (found.size > 1)
      throw new CliError(`${prefix} is ambiguous: it starts ${[...found].join(', ')}; give more characters.`, 2);
    if (!r.has_more) break;
  }
  const [only] = [...found];
  if (only === undefined)
    throw new CliError(
      `no visible commit starting with ${prefix} in the newest ${PREFIX_PAGES * 100} commits${branch ? ` of ${branch}` : ''}; give the full SHA.`,
    );
  return only;
}
