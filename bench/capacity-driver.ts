// The capacity load driver (issue 24): raw HTTP JSON-RPC over keep-alive sockets, in a process of its own, so the
// server under test has the machine's cores to itself apart from this light loop (SDK clients in the bench process
// saturate before the server does). `node --import tsx bench/capacity-driver.ts '<json plan>'` prints one JSON line.
// 2025 era: every session is a real session (initialize, initialized, then tools/call with its id, one socket each).
// 2026-07-28 era: every "session" is a worker sending self-contained requests with `_meta`, one socket each.
import { Agent, request as httpRequest } from 'node:http';
import { performance } from 'node:perf_hooks';
import { rawPost, type RawAnswer } from './raw-post.js';

/** What one run drives. */
export interface DriverPlan {
  /** Session k talks to `urls[k % urls.length]` (perimeters share the sessions out, as keys cap them). */
  readonly urls: readonly string[];
  readonly era: 'legacy' | 'modern';
  readonly sessions: number;
  readonly seconds: number;
  /** Uncounted calls per session before the clock starts (sockets open, caches and JIT warm on both sides). */
  readonly warmup: number;
  /** The calls, cycled by each session from its own offset. */
  readonly calls: readonly { readonly tool: string; readonly args: Record<string, unknown> }[];
}

/** What one run measured. */
export interface DriverResult {
  readonly calls: number;
  readonly seconds: number;
  readonly per_s: number;
  readonly p50_ms: number;
  readonly p99_ms: number;
  readonly errors: number;
  readonly samples: string[];
}

const LEGACY = '2025-11-25';
const MODERN = '2026-07-28';
const META = {
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientInfo': { name: 'capacity', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

/** A POST with its length stated, as SDK clients send it (no chunked encoding). */
const post = (agent: Agent, u: URL, headers: Record<string, string>, body: string): Promise<RawAnswer> =>
  rawPost(agent, u, { 'content-length': String(Buffer.byteLength(body)), ...headers }, body);

/** A 2025-era session: initialize and initialized; the headers its calls carry. */
async function openSession(agent: Agent, u: URL): Promise<Record<string, string>> {
  const init = await post(
    agent,
    u,
    {},
    JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: LEGACY, capabilities: {}, clientInfo: { name: 'capacity', version: '1' } },
    }),
  );
  const sid = init.headers['mcp-session-id'];
  if (typeof sid !== 'string') throw new Error(`initialize answered ${init.status}: ${init.body.slice(0, 200)}`);
  const h = { 'mcp-session-id': sid, 'mcp-protocol-version': LEGACY };
  await post(agent, u, h, JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
  return h;
}

/** DELETE of a 2025-era session. */
function end(agent: Agent, u: URL, headers: Record<string, string>): Promise<void> {
  return new Promise((resolve) => {
    const req = httpRequest(
      { host: u.hostname, port: u.port, path: u.pathname, method: 'DELETE', agent, headers },
      (res) => {
        res.resume();
        res.on('end', () => resolve());
      },
    );
    req.on('error', () => resolve());
    req.end();
  });
}

const sorted = (xs: number[]): number[] => xs.sort((a, b) => a - b);
const pct = (s: readonly number[], q: number): number =>
  s.length === 0 ? NaN : s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
const r3 = (x: number): number => Math.round(x * 1000) / 1000;

/** Runs a plan; resolves with what it measured. */
export async function drive(plan: DriverPlan): Promise<DriverResult> {
  const us = plan.urls.map((x) => new URL(x));
  const latencies: number[] = [];
  let errors = 0;
  const samples: string[] = [];
  const agents = Array.from({ length: plan.sessions }, () => new Agent({ keepAlive: true, maxSockets: 1 }));
  const urlOf = (k: number): URL => us[k % us.length]!;
  const heads = await Promise.all(
    agents.map((a, k) =>
      plan.era === 'legacy' ? openSession(a, urlOf(k)) : Promise.resolve({ 'mcp-protocol-version': MODERN }),
    ),
  );
  // Bodies built once: the driver's own per-call work is a socket write and a read.
  const bodies = plan.calls.map((c, i) =>
    JSON.stringify({
      jsonrpc: '2.0',
      id: i + 1,
      method: 'tools/call',
      params:
        plan.era === 'legacy' ? { name: c.tool, arguments: c.args } : { name: c.tool, arguments: c.args, _meta: META },
    }),
  );
  const one = async (k: number, i: number, count: boolean): Promise<void> => {
    const c = plan.calls[i % plan.calls.length]!;
    const h = plan.era === 'legacy' ? heads[k]! : { ...heads[k]!, 'mcp-method': 'tools/call', 'mcp-name': c.tool };
    const t0 = performance.now();
    let failed: string | undefined;
    try {
      const a = await post(agents[k]!, urlOf(k), h, bodies[i % bodies.length]!);
      if (a.status !== 200 || !a.body.includes('"result"') || a.body.includes('"isError":true'))
        failed = `${c.tool} ${a.status}: ${a.body.slice(0, 200)}`;
    } catch (err) {
      failed = `${c.tool}: ${String(err)}`;
    }
    if (!count) return;
    latencies.push(performance.now() - t0);
    if (failed !== undefined) {
      errors += 1;
      if (samples.length < 3) samples.push(failed);
    }
  };
  await Promise.all(
    agents.map(async (_, k) => {
      for (let i = 0; i < plan.warmup; i++) await one(k, k * 7 + i, false);
    }),
  );
  const t0 = performance.now();
  const deadline = t0 + plan.seconds * 1000;
  await Promise.all(
    agents.map(async (_, k) => {
      for (let i = k * 7; performance.now() < deadline; i++) await one(k, i, true);
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  // Sessions are ended, as a well-behaved client does, so the next run starts with the key's sessions free.
  if (plan.era === 'legacy') await Promise.all(agents.map((a, k) => end(a, urlOf(k), heads[k]!)));
  for (const a of agents) a.destroy();
  const s = sorted(latencies);
  return {
    calls: s.length,
    seconds: r3(seconds),
    per_s: Math.round((s.length / seconds) * 10) / 10,
    p50_ms: r3(pct(s, 0.5)),
    p99_ms: r3(pct(s, 0.99)),
    errors,
    samples,
  };
}

if (process.argv[1] && new URL(import.meta.url).pathname === process.argv[1]) {
  const plan = JSON.parse(process.argv[2] ?? '') as DriverPlan;
  drive(plan).then(
    (r) => process.stdout.write(JSON.stringify(r) + '\n'),
    (err: unknown) => {
      process.stderr.write(`capacity driver failed: ${String(err)}\n`);
      process.exit(1);
    },
  );
}
