import type { NextFunction, Request, Response } from 'express';
import { rpcError } from './status.js';

/** What the guard admits: Host names, and the origins browsers may send. */
export interface GuardPolicy {
  /** Host names (lower case, IPv6 in brackets) a request may be addressed to; undefined admits any well-formed Host. */
  readonly hostnames: ReadonlySet<string> | undefined;
  /** Host names whose origin is admitted on the server's own port only (`http://name:<port>`). */
  readonly ownOrigins: readonly string[];
  /** Configured origins: a bare name admits `http(s)://name` on the server's port or the scheme's default port; an entry with `://` is an exact origin. */
  readonly allowedOrigins: readonly string[];
}

export type GuardVerdict = { kind: 'pass' } | { kind: 'refuse'; status: 400 | 403; message: string };

const LABEL = '[a-z0-9](?:[a-z0-9-]*[a-z0-9])?';
// A bare `host[:port]`: no userinfo, path, query, fragment, spaces or anything else a URL parser might reinterpret.
const BARE_HOST = new RegExp(`^(${LABEL}(?:\\.${LABEL})*\\.?|\\[[0-9a-f:.]+\\])(?::([0-9]{1,5}))?$`, 'i');

/** The host name of a bare `host[:port]` Host value (lower case), or undefined when the value is anything else. */
export function bareHostname(host: string | undefined): string | undefined {
  if (host === undefined || host.length > 255) return undefined;
  const m = BARE_HOST.exec(host);
  if (!m?.[1]) return undefined;
  if (m[2] !== undefined && Number(m[2]) > 65_535) return undefined;
  return m[1].toLowerCase().replace(/\.$/, '');
}

/**
 * Judges one request's target, Host and Origin before any routing. The request target must be origin-form
 * (`/path`): an absolute URI or a `//` prefix would let a URL parser downstream pick another host or path.
 */
export function judgeRequest(
  policy: GuardPolicy,
  r: { url: string; host: string | undefined; origin: string | undefined; port: number },
): GuardVerdict {
  if (!r.url.startsWith('/') || r.url.startsWith('//'))
    return { kind: 'refuse', status: 400, message: 'Bad Request: the request target must be a path.' };
  const name = bareHostname(r.host);
  if (name === undefined)
    return { kind: 'refuse', status: 400, message: 'Bad Request: the Host header must be a bare host[:port].' };
  if (policy.hostnames && !policy.hostnames.has(name))
    return { kind: 'refuse', status: 403, message: `Invalid Host: ${name}` };
  if (r.origin === undefined) return { kind: 'pass' };
  return originAllowed(policy, r.origin, r.port)
    ? { kind: 'pass' }
    : { kind: 'refuse', status: 403, message: 'Invalid Origin.' };
}

function originAllowed(policy: GuardPolicy, origin: string, port: number): boolean {
  let u: URL;
  try {
    u = new URL(origin);
  } catch {
    return false;
  }
  // URL.origin drops default ports, so `http://x:80` and `http://x` compare equal, as browsers send them.
  if (u.origin !== origin.replace(/\/$/, '')) return false;
  const own = new Set<string>();
  for (const name of policy.ownOrigins) own.add(new URL(`http://${name}:${port}`).origin);
  for (const entry of policy.allowedOrigins) {
    if (entry.includes('://')) {
      try {
        own.add(new URL(entry).origin);
      } catch {
        /* an unparsable configured origin admits nothing */
      }
      continue;
    }
    for (const scheme of ['http', 'https']) {
      own.add(new URL(`${scheme}://${entry}:${port}`).origin);
      own.add(new URL(`${scheme}://${entry}`).origin);
    }
  }
  return own.has(u.origin);
}

const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]'];

/** A bind address as a Host header names it: lower case, IPv6 in brackets. */
const asHostname = (h: string): string => (h.includes(':') && !h.startsWith('[') ? `[${h}]` : h).toLowerCase();

/**
 * The guard policy for a server bound to `host`, with the operator's extra Host names and origins. The bind address
 * itself is always admitted (as Host, and as an origin on the server's port): it is the address the banner prints,
 * the CLI on that machine and the `/ui` page use, and an IP literal is never what a DNS-rebinding page sends (its
 * requests carry the attacker's own name). `--allowed-host` adds names; it never removes the bind address.
 */
export function guardPolicy(o: {
  host: string;
  allowedHosts?: readonly string[] | undefined;
  allowedOrigins?: readonly string[] | undefined;
}): GuardPolicy {
  const loopback = ['127.0.0.1', 'localhost', '::1', '[::1]'].includes(o.host);
  const own = loopback ? LOOPBACK_NAMES : [asHostname(o.host)];
  const extra = (o.allowedHosts ?? []).map(asHostname);
  const names = o.allowedHosts?.length || loopback ? [...own, ...extra] : undefined;
  return {
    hostnames: names ? new Set(names) : undefined,
    ownOrigins: own,
    allowedOrigins: o.allowedOrigins ?? [],
  };
}

/** Express middleware: refuses a request whose target, Host or Origin the policy does not admit, on every route. */
export function requestGuard(policy: GuardPolicy): (req: Request, res: Response, next: NextFunction) => void {
  return (req, res, next) => {
    const origin = req.headers.origin;
    const verdict = judgeRequest(policy, {
      url: req.url,
      host: req.headers.host,
      origin,
      port: req.socket.localPort ?? 0,
    });
    switch (verdict.kind) {
      case 'pass':
        next();
        return;
      case 'refuse':
        res.status(verdict.status).json(rpcError(-32000, verdict.message));
        return;
      default: {
        const never: never = verdict;
        throw new Error(`unhandled guard verdict ${String(never)}`);
      }
    }
  };
}
