// The World of one scenario: real repositories, one real server process, real CLI runs, real MCP agents.
// Two assemblies share every step: `local` (perimeter repo = a bare repository path) and `github` (the same bare
// repository behind the in-process GitHub emulator, perimeter repo = acme/platform).
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setWorldConstructor, World, type IWorldOptions } from '@cucumber/cucumber';
import { gitIn, makeRepo, type GitDir } from '../../test/support/gitdir.js';
import { startGitHubEmulator, type Emulator } from '../../test/support/github-emulator/index.js';
import { connectAgent, type Agent, type Era, type ToolAnswer } from './agents.js';
import { GITHUB_REPO, PLATFORM_HISTORY } from './fixture.js';
import { childEnv, runCli, startServer, type CliResult, type ServerProcess } from './processes.js';

export type Assembly = 'local' | 'github';

export interface BlinderParameters {
  readonly assembly?: Assembly;
}

export interface HttpAnswer {
  readonly status: number;
  readonly text: string;
  readonly json: unknown;
  readonly headers: Headers;
}

/** Bounded polling instead of sleeps. */
export async function eventually<T>(what: string, fn: () => Promise<T | undefined>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v !== undefined) return v;
    } catch (e) {
      last = e;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ''}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The scenario's own bare repository: a copy of the fixture, changed with git plumbing (no working tree). */
export interface ScenarioRepo {
  readonly dir: string;
  git(...args: string[]): Promise<string>;
  head(branch: string): Promise<string>;
  /** One commit on `branch` (which must exist) writing the given text files; returns its SHA. */
  commit(spec: { branch: string; message: string; files: Record<string, string> }): Promise<string>;
}

// Building the fixture costs dozens of git processes: it is built once per run and copied for each scenario.
let template: Promise<GitDir> | undefined;
const fixtureTemplate = (): Promise<GitDir> => (template ??= makeRepo(PLATFORM_HISTORY, { bare: true }));

/** Removes the shared fixture (AfterAll). */
export async function removeFixtureTemplate(): Promise<void> {
  const t = template;
  template = undefined;
  if (t) await (await t).cleanup();
}

let tick = 0;

function scenarioRepo(dir: string, scratch: string): ScenarioRepo {
  const git = (...args: string[]) => gitIn(dir, args);
  const head = async (branch: string) => (await git('rev-parse', `refs/heads/${branch}`)).trim();
  return {
    dir,
    git,
    head,
    async commit({ branch, message, files }) {
      const parent = await head(branch);
      const env = { GIT_INDEX_FILE: join(scratch, `index-${++tick}`) };
      await gitIn(dir, ['read-tree', parent], env);
      for (const [path, text] of Object.entries(files)) {
        const file = join(scratch, `blob-${tick}`);
        await writeFile(file, text);
        const blob = (await gitIn(dir, ['hash-object', '-w', '--', file])).trim();
        await gitIn(dir, ['update-index', '--add', '--cacheinfo', `100644,${blob},${path}`], env);
      }
      const tree = (await gitIn(dir, ['write-tree'], env)).trim();
      // Dated after the fixture's history so log order stays deterministic.
      const date = new Date(Date.UTC(2026, 0, 2) + tick * 60_000).toISOString();
      const sha = (
        await gitIn(dir, ['commit-tree', tree, '-p', parent, '-m', message], {
          GIT_AUTHOR_DATE: date,
          GIT_COMMITTER_DATE: date,
        })
      ).trim();
      await git('update-ref', `refs/heads/${branch}`, sha, parent);
      return sha;
    },
  };
}

export class BlinderWorld extends World<BlinderParameters> {
  readonly assembly: Assembly;
  /** Distinctive, so a leak is unmistakable. */
  readonly githubToken = `ghp_${randomBytes(18).toString('hex')}`;
  tmp = '';
  repo: ScenarioRepo | undefined;
  emulator: Emulator | undefined;
  server: ServerProcess | undefined;
  /** Everything every server process of this scenario printed (restarts included). */
  readonly serverLogs: string[] = [];
  serverArgs: string[] = [];
  opsToken = '';
  readonly agents = new Map<string, Agent>();
  readonly children = new Set<ChildProcess>();
  /** Every answer text this scenario received from the server or the CLI (for the token-leak check). */
  readonly received: string[] = [];
  lastCli: CliResult | undefined;
  lastHttp: HttpAnswer | undefined;
  lastAnswer: ToolAnswer | undefined;
  /** Agent keys the operator issued, by perimeter id (the key an orchestrator hands an agent with its URL). */
  readonly keys = new Map<string, string>();
  /** Named values remembered between steps (branch heads, answers). */
  readonly memo = new Map<string, unknown>();

  constructor(options: IWorldOptions<BlinderParameters>) {
    super(options);
    this.assembly = options.parameters.assembly ?? 'local';
  }

  /** The perimeter `repo` value: a local path or owner/name. */
  get repoRef(): string {
    if (!this.repo) throw new Error('no repository yet');
    return this.assembly === 'github' ? GITHUB_REPO : this.repo.dir;
  }

  get url(): string {
    if (!this.server) throw new Error('no server running');
    return this.server.url;
  }

  get stateDir(): string {
    return join(this.tmp, 'state');
  }

  async init(): Promise<void> {
    this.tmp = await mkdtemp(join(tmpdir(), 'gb-feature-'));
  }

  async buildPlatformRepo(): Promise<void> {
    const dir = join(this.tmp, 'platform.git');
    await cp((await fixtureTemplate()).dir, dir, { recursive: true });
    this.repo = scenarioRepo(dir, this.tmp);
    if (this.assembly === 'github') {
      this.emulator = await startGitHubEmulator({ token: this.githubToken, repos: { [GITHUB_REPO]: this.repo.dir } });
    }
  }

  /** Head of a branch of the repository, read with git itself (not through the server). */
  async head(branch: string): Promise<string> {
    if (!this.repo) throw new Error('no repository yet');
    return this.repo.head(branch);
  }

  /** SHA of the newest commit (on any branch) whose subject is `message`. */
  async shaOf(message: string): Promise<string> {
    if (!this.repo) throw new Error('no repository yet');
    const out = await this.repo.git('log', '--all', '--format=%H %s');
    for (const line of out.split('\n')) {
      const i = line.indexOf(' ');
      if (line.slice(i + 1) === message) return line.slice(0, i);
    }
    throw new Error(`no commit "${message}" in the repository`);
  }

  async startServer(): Promise<void> {
    const args = ['--state-dir', this.stateDir, ...this.serverArgs];
    if (this.assembly === 'github') {
      if (!this.emulator) throw new Error('the GitHub assembly needs the emulator');
      // Debug logging: the most talkative the server gets, so the token-secrecy checks see every log line there is.
      args.push('--github-url', this.emulator.url, '--log-level', 'debug');
    } else {
      // No token and no config would serve the current directory; an empty config serves only what the operator creates.
      const boot = join(this.tmp, 'boot.yaml');
      await writeFile(boot, 'perimeters: {}\n');
      args.push('--config', boot);
    }
    // The GitHub token travels in the environment: a flag value would be readable by every local user (ps).
    this.server = await startServer(args, {
      cwd: this.tmp,
      env: childEnv(this.assembly === 'github' ? { GITHUB_TOKEN: this.githubToken } : {}),
    });
    this.children.add(this.server.child);
    this.opsToken =
      this.assembly === 'github' ? this.githubToken : (await readFile(join(this.stateDir, 'ops-token'), 'utf8')).trim();
  }

  async stopServer(): Promise<void> {
    const s = this.server;
    if (!s) return;
    this.server = undefined;
    await s.stop();
    const { stdout, stderr } = s.output();
    this.serverLogs.push(stdout, stderr);
  }

  /** Raw MCP-path request carrying the path's credential (or `bearer`, or none with null). */
  mcp(
    method: string,
    path: string,
    init: { headers?: Record<string, string>; body?: unknown; bearer?: string | null | undefined } = {},
  ): Promise<HttpAnswer> {
    const key = init.bearer === null ? undefined : (init.bearer ?? this.credentialFor(path));
    return this.http(method, path, {
      headers: { ...init.headers, ...(key ? { authorization: `Bearer ${key}` } : {}) },
      ...(init.body === undefined ? {} : { body: init.body }),
    });
  }

  /** All server output so far, including the running process. */
  serverOutput(): string {
    const live = this.server?.output();
    return [...this.serverLogs, live?.stdout ?? '', live?.stderr ?? ''].join('\n');
  }

  /** Runs `git-blinder <args> --url <server> --state-dir <state>` as the operator would on the server machine. */
  async cli(args: string[]): Promise<CliResult> {
    const env = childEnv(this.assembly === 'github' ? { GITHUB_TOKEN: this.githubToken } : {});
    const r = await runCli([...args, '--url', this.url, '--state-dir', this.stateDir], {
      cwd: this.tmp,
      env,
      track: (c) => {
        this.children.add(c);
        c.once('close', () => this.children.delete(c));
      },
    });
    this.lastCli = r;
    this.received.push(r.stdout, r.stderr);
    return r;
  }

  /** Raw HTTP to the server. */
  async http(
    method: string,
    path: string,
    init: { headers?: Record<string, string>; body?: unknown } = {},
  ): Promise<HttpAnswer> {
    const res = await fetch(this.url + path, {
      method,
      headers: { ...(init.body === undefined ? {} : { 'content-type': 'application/json' }), ...init.headers },
      ...(init.body === undefined
        ? {}
        : { body: typeof init.body === 'string' ? init.body : JSON.stringify(init.body) }),
    });
    const text = await res.text();
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    const answer = { status: res.status, text, json, headers: res.headers };
    this.lastHttp = answer;
    this.received.push(text);
    return answer;
  }

  /** The operator API with the ops token (or `token`, or none with `null`). */
  api(method: string, path: string, body?: unknown, token: string | null = this.opsToken): Promise<HttpAnswer> {
    return this.http(method, `/api${path}`, {
      headers: token === null ? {} : { authorization: `Bearer ${token}` },
      body,
    });
  }

  /** Creates a perimeter through the API and issues it one agent key. */
  async createPerimeter(spec: Record<string, unknown> & { id: string }): Promise<void> {
    const r = await this.api('POST', '/perimeters', { repo: this.repoRef, ...spec });
    if (r.status !== 201) throw new Error(`creating perimeter failed: ${r.status} ${r.text}`);
    await this.issueKey(spec.id);
  }

  async issueKey(id: string): Promise<{ id: string; key: string }> {
    const k = await this.api('POST', `/perimeters/${id}/keys`);
    if (k.status !== 201) throw new Error(`issuing a key failed: ${k.status} ${k.text}`);
    const issued = k.json as { id: string; key: string };
    this.keys.set(id, issued.key);
    return issued;
  }

  /** The credential that opens an MCP path: the ops token for /mcp/root, else the perimeter's agent key if one was issued. */
  credentialFor(path: string): string | undefined {
    const id = path.split('/')[2] ?? '';
    return id === 'root' ? this.opsToken : this.keys.get(id);
  }

  /** Connects a real MCP client; `bearer` defaults to the path's credential (null: none at all). */
  async connect(
    name: string,
    path: string,
    era: Era = 'legacy',
    bearer: string | null | undefined = undefined,
  ): Promise<Agent> {
    const old = this.agents.get(name);
    if (old) await old.close();
    const key = bearer === null ? undefined : (bearer ?? this.credentialFor(path));
    const agent = await connectAgent(name, this.url, path, era, key);
    // Remember every answer for the leak check.
    const recorded: Agent = {
      ...agent,
      call: async (tool, args) => {
        const a = await agent.call(tool, args);
        this.received.push(JSON.stringify(a.raw));
        return a;
      },
    };
    this.agents.set(name, recorded);
    return recorded;
  }

  agent(name: string): Agent {
    const a = this.agents.get(name);
    if (!a) throw new Error(`agent ${name} is not connected`);
    return a;
  }

  async cleanup(): Promise<void> {
    await Promise.all([...this.agents.values()].map((a) => a.close().catch(() => undefined)));
    this.agents.clear();
    await this.stopServer().catch(() => undefined);
    for (const c of this.children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    this.children.clear();
    await this.emulator?.close().catch(() => undefined);
    if (this.tmp) await rm(this.tmp, { recursive: true, force: true });
  }
}

setWorldConstructor(BlinderWorld);
