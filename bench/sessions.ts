// Section "sessions": what one idle 2025-era session and one 2026-07-28 request leave behind in the server, measured
// in-process with forced garbage collection. The requests are raw HTTP (no SDK client objects in this process), so
// the heap difference is the server's own.
import { Agent } from 'node:http';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { makeRepo } from '../test/support/gitdir.js';
import { startTestServer } from '../test/support/server.js';
import { openIdleSession, openStream, post } from './raw-session.js';
import { progress, round } from './stats.js';

setFlagsFromString('--expose_gc');
const gc = runInNewContext('gc') as () => void;

const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
};
/** One 2026-07-28 tools/call, as the SDK client sends it. */
async function statelessCall(agent: Agent, url: string, i: number): Promise<void> {
  const args = { path: 'src/a.ts' };
  const r = await post(
    agent,
    url,
    { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'get_file' },
    { jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: 'get_file', arguments: args, _meta: META } },
  );
  if (r.status !== 200 || !r.body.includes('export const a'))
    throw new Error(`stateless call answered ${r.status}: ${r.body.slice(0, 200)}`);
}

/** Heap and RSS after two full collections (the second frees what finalizers of the first released). */
async function settled(): Promise<{ heap: number; rss: number }> {
  for (let i = 0; i < 3; i++) {
    gc();
    await new Promise((r) => setImmediate(r));
  }
  const m = process.memoryUsage();
  return { heap: m.heapUsed, rss: m.rss };
}

/** Runs the section. */
export async function benchSessions(smoke: boolean): Promise<Record<string, unknown>> {
  const sessions = smoke ? 40 : 400;
  const batch = smoke ? 150 : 2000;
  // JIT-compiled code and its metadata keep growing for the first few thousand requests: that is not per-request
  // state, so the requests are measured in three batches after a warm-up and the last batch is the figure.
  const warmup = smoke ? 300 : 2000;
  const repo = await makeRepo(
    [
      {
        message: 'init',
        files: { 'src/a.ts': 'export const a = 1;\n', 'src/b.ts': 'export const b = 2;\n', '.env': 'SECRET=1\n' },
      },
    ],
    { bare: true },
  );
  const srv = await startTestServer({
    sessionIdleMs: 3_600_000,
    sessionLimits: { max: 100_000, perPerimeter: 100_000, perKey: 100_000 },
  });
  const agent = new Agent({ keepAlive: true, maxSockets: 4 });
  try {
    await srv.perimeter({ id: 'app', repo: repo.dir, read: ['src/**'], write: ['src/**'] });
    const url = `${srv.url}/mcp/app`;
    // Warm every code path once so lazily built SDK and module state is not counted against the first sessions.
    for (let i = 0; i < 20; i++) await openIdleSession(agent, url);
    for (let i = 0; i < warmup; i += 4) await Promise.all([0, 1, 2, 3].map((k) => statelessCall(agent, url, i + k)));
    srv.records.length = 0;

    const before = await settled();
    for (let i = 0; i < sessions; i += 4)
      await Promise.all(Array.from({ length: Math.min(4, sessions - i) }, () => openIdleSession(agent, url)));
    const idle = await settled();
    const perSessionHeap = (idle.heap - before.heap) / sessions;
    const perSessionRss = (idle.rss - before.rss) / sessions;
    progress(
      `sessions: ${sessions} idle, ${round(perSessionHeap / 1024, 1)} KB heap and ${round(perSessionRss / 1024, 1)} KB RSS each`,
    );

    // The same with the GET stream each SDK client opens and holds (one socket and one SSE response per session).
    const streams: { destroy(): void }[] = [];
    const withStreams = Math.max(10, sessions / 4);
    const t0 = await settled();
    for (let i = 0; i < withStreams; i++) await openStream(url, await openIdleSession(agent, url), streams);
    await new Promise((r) => setTimeout(r, 300));
    const t1 = await settled();
    const perStreamSession = (t1.heap - t0.heap) / withStreams;
    for (const r of streams) r.destroy();
    progress(`sessions: ${withStreams} idle with a GET stream, ${round(perStreamSession / 1024, 1)} KB heap each`);

    // Stateless requests: the records the test server keeps in memory are cleared, as the real ledger writes to disk.
    const perBatch: number[] = [];
    let rssGrowth = 0;
    for (let b = 0; b < 3; b++) {
      const s0 = await settled();
      for (let i = 0; i < batch; i += 4) await Promise.all([0, 1, 2, 3].map((k) => statelessCall(agent, url, i + k)));
      srv.records.length = 0;
      const s1 = await settled();
      perBatch.push(round((s1.heap - s0.heap) / batch, 1));
      rssGrowth += s1.rss - s0.rss;
    }
    const perRequest = perBatch[perBatch.length - 1] as number;
    progress(`sessions: 3 × ${batch} stateless requests, heap growth per request by batch ${perBatch.join(', ')} B`);
    // Under 64 bytes a request is noise (lazily grown tables, late JIT code); 3 KB per request was the old leak.
    const met = perRequest < 64;
    return {
      idle_sessions: {
        count: sessions,
        heap_per_session_kb: round(perSessionHeap / 1024, 1),
        rss_per_session_kb: round(perSessionRss / 1024, 1),
        with_get_stream: { count: withStreams, heap_per_session_kb: round(perStreamSession / 1024, 1) },
        target_kb: 100,
        met: perSessionHeap / 1024 <= 100 && perSessionRss / 1024 <= 100,
      },
      stateless: {
        warmup,
        batches: 3,
        batch,
        bytes_per_request_by_batch: perBatch,
        bytes_per_request: perRequest,
        rss_growth_kb: round(rssGrowth / 1024, 1),
        met,
      },
      method: 'in-process server, raw HTTP requests (no client objects in the process), forced GC before each reading',
    };
  } finally {
    agent.destroy();
    await srv.close();
    await repo.cleanup();
  }
}

type R = Record<string, any>;

/** The report section (markdown). */
export function sessionsSection(r: R): string {
  const i = r.idle_sessions;
  const s = r.stateless;
  return [
    '## Sessions (idle 2025-era sessions, 2026-07-28 requests)',
    '',
    `${r.method}. Every session and stateless request is served from one shared toolset per surface and grant set (src/mcp/toolset.ts): a session holds the SDK's low-level \`Server\`, its transport and two handlers, never its own copy of the tool registry or schemas.`,
    '',
    '| measure | figure | target | status |',
    '| --- | --- | --- | --- |',
    `| heap per idle session (${i.count} sessions, after GC), KB | ${i.heap_per_session_kb} | ≤ 100 KB | ${i.met ? 'met' : '**missed**'} |`,
    `| RSS per idle session (same, in-process; noisy, a forced GC can hand pages back), KB | ${i.rss_per_session_kb} |  |  |`,
    ...(i.with_get_stream
      ? [
          `| heap per idle session holding its GET stream open (${i.with_get_stream.count} sessions), KB | ${i.with_get_stream.heap_per_session_kb} |  | the SDK transport's SSE stream |`,
        ]
      : []),
    `| heap growth per stateless request, by batch of ${s.batch} (after ${s.warmup} warm-up requests), B | ${s.bytes_per_request_by_batch.join(', ')} | none (< 64 B, last batch) | ${s.met ? 'met' : '**missed**'} |`,
  ].join('\n');
}
