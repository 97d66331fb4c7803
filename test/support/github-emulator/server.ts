// The HTTP side: authentication, faults, rate-limit bookkeeping, ETag/304, and turning replies into responses.
import { createHash, randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Ctx } from './context.js';
import { errorBody, GitHubError, type Reply } from './reply.js';
import { match } from './router.js';
import { getRaw } from './routes-content.js';
import type { EmulatorState, PendingFault } from './state.js';

const RATE_DOCS = 'https://docs.github.com/rest/overview/rate-limits-for-the-rest-api';
const SECONDARY_DOCS =
  'https://docs.github.com/free-pro-team@latest/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits';
/** Unauthenticated callers have their own small budget, as on GitHub. */
const ANON_LIMIT = 60;

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function tokenOf(req: IncomingMessage): string | null {
  const h = req.headers.authorization;
  if (!h) return null;
  const m = /^(?:token|bearer)\s+(\S+)\s*$/i.exec(h);
  return m?.[1] ?? '';
}

function errorReply(e: GitHubError): Reply {
  return { kind: 'json', status: e.status, body: errorBody(e), headers: e.headers };
}

function faultReply(
  f: PendingFault,
  s: EmulatorState,
  nowEpoch: number,
): { reply: Reply; rate?: { remaining: number; reset: number } } {
  const requestId = randomBytes(8).toString('hex').toUpperCase();
  switch (f.kind) {
    case 'primary': {
      const e = new GitHubError(
        f.status,
        `API rate limit exceeded for user ID ${s.user.id}. If you reach out to GitHub Support for help, please include the request ID ${requestId}.`,
        RATE_DOCS,
      );
      return { reply: errorReply(e), rate: { remaining: 0, reset: nowEpoch + f.retryAfterSeconds } };
    }
    case 'secondary': {
      const e = new GitHubError(
        f.status,
        `You have exceeded a secondary rate limit. Please wait a few minutes before you try again. If you reach out to GitHub Support for help, please include the request ID ${requestId}.`,
        SECONDARY_DOCS,
        {},
        f.retryAfterSeconds === undefined ? {} : { 'retry-after': String(f.retryAfterSeconds) },
      );
      return { reply: errorReply(e) };
    }
    case 'server': {
      const text = f.status === 500 ? 'Server Error' : f.status === 502 ? 'Bad Gateway' : 'Service Unavailable';
      return { reply: errorReply(new GitHubError(f.status, text, 'https://docs.github.com/rest')) };
    }
    default: {
      const never: never = f;
      throw new Error(`unknown fault ${JSON.stringify(never)}`);
    }
  }
}

function etagOf(reply: Reply): string | null {
  if (reply.kind === 'empty') return null;
  const bytes = reply.kind === 'json' ? JSON.stringify(reply.body) : reply.body;
  return `W/"${createHash('sha256').update(bytes).digest('hex')}"`;
}

function etagMatches(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  const strip = (t: string): string => t.trim().replace(/^W\//, '');
  return header.split(',').some((t) => t.trim() === '*' || strip(t) === strip(etag));
}

/** Handles one request end to end. */
export async function handle(s: EmulatorState, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const method = (req.method ?? 'GET').toUpperCase();
  const url = req.url ?? '/';
  const q = url.indexOf('?');
  const rawPath = q >= 0 ? url.slice(0, q) : url;
  const query = new URLSearchParams(q >= 0 ? url.slice(q + 1) : '');
  const rawBody = await readBody(req);
  if (s.latencyMs > 0) await new Promise((r) => setTimeout(r, s.latencyMs));
  const nowEpoch = Math.floor(Date.now() / 1000);
  const route = match(method, rawPath);
  const record = (status: number): void => {
    s.requests.push(
      route ? { method, path: url, status, route: `${method} ${route.template}` } : { method, path: url, status },
    );
  };

  // raw.githubusercontent.com stand-in: download_url targets need no Authorization header.
  const raw = /^\/_raw\/([^/]+)\/([^/]+)\/([0-9a-f]{40})\/(.+)$/.exec(rawPath);
  if (raw && method === 'GET') {
    const [, owner = '', name = '', commit = '', path = ''] = raw;
    const entry = s.repos.get(`${owner}/${name}`.toLowerCase());
    const reply = entry
      ? await getRaw(entry, commit, decodeURIComponent(path))
      : errorReply(new GitHubError(404, 'Not Found'));
    send(res, reply, {});
    record(reply.status);
    return;
  }

  const token = tokenOf(req);
  let rateHeaders: Record<string, string>;
  let reply: Reply;
  let counts = true;
  if (token === null || !s.tokenOk(token)) {
    const anon = s.budget('\0anonymous', nowEpoch);
    anon.used += 1;
    rateHeaders = rateLimitHeaders(ANON_LIMIT, anon.used, anon.resetEpoch);
    reply = errorReply(
      new GitHubError(
        401,
        token === null ? 'Requires authentication' : 'Bad credentials',
        'https://docs.github.com/rest',
      ),
    );
    send(res, reply, rateHeaders);
    record(reply.status);
    return;
  }

  const budget = s.budget(token, nowEpoch);
  const isRateLimit = route?.template === '/rate_limit';
  const fault = isRateLimit ? undefined : s.pending[0];
  if (fault) {
    fault.remaining -= 1;
    if (fault.remaining <= 0) s.pending.shift();
    const f = faultReply(fault, s, nowEpoch);
    rateHeaders = f.rate
      ? rateLimitHeaders(s.limit, s.limit, f.rate.reset)
      : rateLimitHeaders(s.limit, budget.used, budget.resetEpoch);
    send(res, f.reply, rateHeaders);
    record(f.reply.status);
    return;
  }
  if (!isRateLimit && budget.used >= s.limit) {
    reply = errorReply(new GitHubError(403, `API rate limit exceeded for user ID ${s.user.id}.`, RATE_DOCS));
    send(res, reply, rateLimitHeaders(s.limit, budget.used, budget.resetEpoch));
    record(reply.status);
    return;
  }

  if (!req.headers['user-agent']) {
    reply = errorReply(
      new GitHubError(
        403,
        'Request forbidden by administrative rules. Please make sure your request has a User-Agent header (https://docs.github.com/en/rest/overview/resources-in-the-rest-api#user-agent-required).',
      ),
    );
  } else if (!route) {
    reply = errorReply(new GitHubError(404, 'Not Found', 'https://docs.github.com/rest'));
  } else {
    const ctx: Ctx = {
      s,
      method,
      rawPath,
      query,
      token,
      accept: String(req.headers.accept ?? 'application/json'),
      rawBody,
    };
    try {
      const entry = route.repo
        ? s.repo(route.repo.owner, route.repo.name, token, 'https://docs.github.com/rest')
        : null;
      reply = await route.run(ctx, entry);
    } catch (err) {
      if (err instanceof GitHubError) reply = errorReply(err);
      else {
        process.stderr.write(`github-emulator: ${method} ${url}: ${(err as Error).stack ?? String(err)}\n`);
        reply = errorReply(new GitHubError(500, 'Server Error'));
      }
    }
  }

  const extra: Record<string, string> = {};
  if (method === 'GET' && reply.status === 200) {
    const etag = etagOf(reply);
    if (etag) {
      extra.etag = etag;
      if (etagMatches(req.headers['if-none-match'], etag)) {
        reply = { kind: 'empty', status: 304, headers: { etag } };
        counts = false; // conditional hits are free on GitHub
      }
    }
  }
  if (isRateLimit) counts = false;
  if (counts) budget.used += 1;
  send(res, reply, { ...rateLimitHeaders(s.limit, budget.used, budget.resetEpoch), ...extra });
  record(reply.status);
}

/** The x-ratelimit-* headers GitHub sends on every response. */
function rateLimitHeaders(limit: number, used: number, reset: number): Record<string, string> {
  return {
    'x-ratelimit-limit': String(limit),
    'x-ratelimit-remaining': String(Math.max(0, limit - used)),
    'x-ratelimit-reset': String(reset),
    'x-ratelimit-used': String(used),
    'x-ratelimit-resource': 'core',
  };
}

function send(res: ServerResponse, reply: Reply, headers: Record<string, string>): void {
  const h: Record<string, string> = {
    ...headers,
    'x-github-media-type': 'github.v3; format=json',
    'x-github-api-version-selected': '2022-11-28',
    'x-github-request-id': randomBytes(8).toString('hex').toUpperCase(),
    ...reply.headers,
  };
  switch (reply.kind) {
    case 'json': {
      const body = Buffer.from(JSON.stringify(reply.body));
      res.writeHead(reply.status, {
        ...h,
        'content-type': 'application/json; charset=utf-8',
        'content-length': String(body.length),
      });
      res.end(body);
      return;
    }
    case 'raw':
      res.writeHead(reply.status, {
        ...h,
        'content-type': reply.contentType,
        'content-length': String(reply.body.length),
      });
      res.end(reply.body);
      return;
    case 'empty':
      res.writeHead(reply.status, h);
      res.end();
      return;
    default: {
      const never: never = reply;
      throw new Error(`unknown reply ${JSON.stringify(never)}`);
    }
  }
}
