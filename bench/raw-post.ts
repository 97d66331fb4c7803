// One raw HTTP POST of a JSON body over the caller's agent (its keep-alive sockets), for the benches that drive a
// server without an SDK client, so the client's own objects and parsing are neither timed nor left in the heap.
import { type Agent, type IncomingHttpHeaders, request as httpRequest } from 'node:http';

/** The server's answer: status, headers and the whole body as text. */
export interface RawAnswer {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/** POSTs `body` to `u` as JSON accepting JSON or an event stream; `headers` are added after those two. */
export function rawPost(agent: Agent, u: URL, headers: Record<string, string>, body: string): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: u.hostname,
        port: u.port,
        path: u.pathname,
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}
