// The attack registry, the leak detector and raw HTTP helpers shared by the adversarial suite.
import { request as httpRequest } from 'node:http';
import { OPS_TOKEN, type Agent } from '../support/server.js';
import { APP_READ, APP_WRITE, GITHUB_TOKEN, type Fixture } from './fixture.js';

/** One attack: what it tries, and a check that throws when the attack got anything. */
export interface Attack {
  readonly category: string;
  readonly name: string;
  /**
   * Set for attacks that run on one upstream only: policy checks made before any upstream call are the same code
   * on both, and history scans over the GitHub emulator cost seconds each, so their variants run on local git.
   */
  readonly only?: 'local';
  run(): Promise<void>;
}

/** One ordinary use that must keep working. */
export interface LegitUse {
  readonly name: string;
  readonly only?: 'local';
  run(): Promise<void>;
}

interface Outcome {
  readonly upstream: string;
  readonly category: string;
  readonly name: string;
  readonly ms: number;
  readonly error?: string;
}

/** Counts attacks and legitimate uses per upstream and category; prints the one summary line. */
export class Ledger {
  readonly attacks: Outcome[] = [];
  readonly legit: Outcome[] = [];

  /**
   * Runs attacks, `concurrency` at a time (only for attacks that change nothing: write attacks compare branch
   * heads before and after, so they run one by one). Returns the attacks that got through.
   */
  async runAttacks(upstream: string, all: readonly Attack[], concurrency = 1): Promise<Outcome[]> {
    const list = all.filter((a) => a.only === undefined || a.only === upstream);
    const names = new Set<string>();
    for (const a of list) {
      if (names.has(a.name)) throw new Error(`duplicate attack name: ${a.name}`);
      names.add(a.name);
    }
    const outcomes: Outcome[] = new Array(list.length);
    let next = 0;
    const worker = async () => {
      for (let i = next++; i < list.length; i = next++) {
        const a = list[i];
        if (a) outcomes[i] = await settle(upstream, a.category, a.name, () => a.run());
      }
    };
    await Promise.all(Array.from({ length: Math.max(1, concurrency) }, worker));
    this.attacks.push(...outcomes);
    return outcomes.filter((o) => o.error !== undefined);
  }

  async runLegit(upstream: string, list: readonly LegitUse[]): Promise<Outcome[]> {
    const failed: Outcome[] = [];
    for (const u of list.filter((x) => x.only === undefined || x.only === upstream)) {
      const o = await settle(upstream, 'legit', u.name, () => u.run());
      this.legit.push(o);
      if (o.error !== undefined) failed.push(o);
    }
    return failed;
  }

  /** The slowest attacks and uses, to keep the suite within its time budget. */
  slowest(n: number): string {
    return [...this.attacks, ...this.legit]
      .sort((a, b) => b.ms - a.ms)
      .slice(0, n)
      .map((o) => `${Math.round(o.ms)} ms [${o.upstream}/${o.category}] ${o.name}`)
      .join('\n');
  }

  summary(): string {
    const blocked = this.attacks.filter((a) => a.error === undefined);
    const intact = this.legit.filter((a) => a.error === undefined);
    const distinct = new Set(blocked.map((a) => a.name)).size;
    const perCategory = new Map<string, number>();
    for (const a of blocked) perCategory.set(a.category, (perCategory.get(a.category) ?? 0) + 1);
    const cats = [...perCategory]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([c, n]) => `${c}: ${n}`)
      .join(', ');
    const ups = [...new Set(this.attacks.map((a) => a.upstream))].join(' + ');
    return (
      `${blocked.length} attacks blocked, ${intact.length} legitimate uses intact` +
      ` (${distinct} distinct attacks on ${ups}; ${this.attacks.length - blocked.length} succeeded, ${this.legit.length - intact.length} uses broken)\n` +
      `  per category: ${cats}`
    );
  }
}

async function settle(upstream: string, category: string, name: string, fn: () => Promise<void>): Promise<Outcome> {
  const t0 = performance.now();
  try {
    await fn();
    return { upstream, category, name, ms: performance.now() - t0 };
  } catch (err) {
    return {
      upstream,
      category,
      name,
      ms: performance.now() - t0,
      error: err instanceof Error ? err.message : String(err),
    };
  }
}

/** A failed check inside an attack or a use. */
export function check(cond: unknown, message: string): asserts cond {
  if (!cond) throw new Error(message);
}

/** Strings an agent of perimeter `app` must never read unless it sent them itself. */
export function secretsOf(fx: Fixture): string[] {
  return [
    fx.keys.app,
    fx.keys.narrow,
    fx.keys.other,
    fx.keys.revoked,
    OPS_TOKEN,
    GITHUB_TOKEN,
    fx.bare,
    fx.shas.branchOnly,
    fx.shas.hiddenOnly,
    fx.shas.privateOnly,
    // Policy: globs of the perimeter and of the built-in zones and protections.
    ...APP_READ,
    ...APP_WRITE.filter((g) => g.includes('*')),
    'secret/**',
    '**/.env',
    '**/*.pem',
    '.github/workflows/**',
    // Hidden paths and names.
    'secret/',
    'app2/',
    'app.bak',
    'app-old',
    'docs/internal',
    'docs/notes.txt',
    'feature-hidden',
    'CODEOWNERS',
    '.gitmodules',
    'README.md',
    'drop/existing',
    'ID_RSA',
    'id_rsa',
    'server.pem',
    'credentials.json',
    '\uff41\uff50\uff50',
    '\u0430pp',
    'app\u0307',
    'root:x:0',
  ];
}

/**
 * Every leak in `answer`: a CANARY_* marker, key, token, glob or hidden name the request did not carry itself
 * (an agent's own path may be echoed in a not-found message; nothing else may).
 */
export function leaksIn(fx: Fixture, answer: string, request: string, allow: readonly string[] = []): string[] {
  const found: string[] = [];
  const allowed = (s: string) => request.includes(s) || allow.some((a) => a.includes(s) || s.includes(a));
  for (const m of answer.match(/CANARY_[A-Z0-9_]+/g) ?? []) if (!allowed(m)) found.push(m);
  for (const s of secretsOf(fx)) if (s !== '' && answer.includes(s) && !allowed(s)) found.push(s);
  return [...new Set(found)];
}

/** Throws when `answer` leaks anything the request did not carry. */
export function noLeak(fx: Fixture, answer: unknown, request: unknown, allow: readonly string[] = []): void {
  const a = typeof answer === 'string' ? answer : JSON.stringify(answer);
  const r = typeof request === 'string' ? request : JSON.stringify(request);
  const leaks = leaksIn(fx, a, r, allow);
  check(leaks.length === 0, `leaked ${JSON.stringify(leaks)} in ${a.slice(0, 300)}`);
}

export interface CallOut {
  readonly isError?: boolean;
  readonly text: string;
  readonly structured: any;
  /** The client threw (a JSON-RPC error rather than a tool result). */
  readonly thrown?: boolean;
}

/** Calls a tool; a JSON-RPC error becomes an error answer instead of an exception. */
export async function callTool(agent: Agent, name: string, args: unknown): Promise<CallOut> {
  try {
    return await agent.call(name, args as Record<string, unknown>);
  } catch (err) {
    return {
      isError: true,
      text: err instanceof Error ? err.message : String(err),
      structured: undefined,
      thrown: true,
    };
  }
}

/** Replaces every occurrence of each given string (longest first) with a placeholder, for byte comparisons. */
export function redact(text: string, ...parts: string[]): string {
  let out = text;
  for (const p of [...parts].sort((a, b) => b.length - a.length)) if (p !== '') out = out.split(p).join('\u241f');
  return out;
}

export interface RawAnswer {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly text: string;
}

/** A raw HTTP request: the path goes on the wire unnormalized, and any header (Host included) can be set. */
export function raw(
  base: string,
  opts: { method?: string; path: string; headers?: Record<string, string>; body?: string | Buffer },
): Promise<RawAnswer> {
  const u = new URL(base);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: u.hostname,
        port: u.port,
        method: opts.method ?? 'POST',
        path: opts.path,
        headers: opts.headers ?? {},
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    if (opts.body !== undefined) req.write(opts.body);
    req.end();
  });
}

export const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

export const INIT = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'attacker', version: '1' } },
});

/** The JSON-RPC messages of an answer (JSON or server-sent events). */
export function messagesOf(text: string): any[] {
  const t = text.trim();
  if (t.startsWith('{') || t.startsWith('[')) {
    try {
      const v = JSON.parse(t);
      return Array.isArray(v) ? v : [v];
    } catch {
      return [];
    }
  }
  return t
    .split('\n')
    .filter((l) => l.startsWith('data:'))
    .map((l) => l.slice(5).trim())
    .filter((l) => l !== '')
    .flatMap((l) => {
      try {
        return [JSON.parse(l)];
      } catch {
        return [];
      }
    });
}

/** Opens a raw 2025-era session on `path` and returns its id. */
export async function rawSession(base: string, path: string, key: string): Promise<string> {
  const r = await raw(base, { path, headers: { ...JSON_HEADERS, authorization: `Bearer ${key}` }, body: INIT });
  const sid = r.headers['mcp-session-id'];
  check(
    r.status === 200 && typeof sid === 'string',
    `could not open a session on ${path}: ${r.status} ${r.text.slice(0, 200)}`,
  );
  const note = JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' });
  await raw(base, {
    path,
    headers: {
      ...JSON_HEADERS,
      authorization: `Bearer ${key}`,
      'mcp-session-id': sid,
      'mcp-protocol-version': '2025-11-25',
    },
    body: note,
  });
  return sid;
}

/** Sends one JSON-RPC body inside a session. */
export function rawRpc(
  base: string,
  path: string,
  key: string,
  sid: string,
  body: string,
  extra: Record<string, string> = {},
): Promise<RawAnswer> {
  return raw(base, {
    path,
    headers: {
      ...JSON_HEADERS,
      authorization: `Bearer ${key}`,
      'mcp-session-id': sid,
      'mcp-protocol-version': '2025-11-25',
      ...extra,
    },
    body,
  });
}
