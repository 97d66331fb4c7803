// The adapter's pure pieces: the byte-budget LRU, error translation, redaction, entry kinds (content sniffing is the core's: test/core/binary.test.ts).
import { describe, expect, it } from 'vitest';
import { ByteLru } from '../../../src/upstream/github/cache.js';
import { parseRepo } from '../../../src/upstream/github/context.js';
import { translate, UpstreamFailure } from '../../../src/upstream/github/errors.js';
import { makeRedactor, octokitLog, type LogLevel } from '../../../src/upstream/github/logger.js';
import { entryType } from '../../../src/upstream/github/tree.js';

const TOKEN = 'ghp_unitTokenUnitTokenUnitToken0000000000';
const redact = makeRedactor(TOKEN);

/** An Octokit-shaped RequestError (matched structurally by the adapter). */
function httpError(status: number, data: unknown, headers: Record<string, string> = {}): Error {
  const e = new Error(typeof data === 'object' && data && 'message' in data ? String(data.message) : 'x') as Error &
    Record<string, unknown>;
  e.name = 'HttpError';
  e['status'] = status;
  e['response'] = { headers, data, status, url: '' };
  return e;
}

describe('ByteLru', () => {
  it('evicts least recently used entries past the budget and skips oversized ones', () => {
    let hits = 0;
    const c = new ByteLru(100, () => (hits += 1));
    c.set('a', 'A', 20);
    c.set('b', 'B', 20);
    c.set('c', 'C', 20);
    expect(c.get('a')).toBe('A'); // a is now most recent
    c.set('d', 'D', 20);
    c.set('e', 'E', 20); // 100 used: still fits
    c.set('f', 'F', 20); // evicts b (least recent)
    expect(c.get('b')).toBeUndefined();
    expect(c.get('a')).toBe('A');
    expect(c.bytes).toBeLessThanOrEqual(100);
    c.set('huge', 'H', 60); // over a quarter of the budget: not kept
    expect(c.peek('huge')).toBeUndefined();
    expect(hits).toBe(2);
  });
});

describe('translate', () => {
  it('maps statuses to codes with fixed, token-free messages', () => {
    const cases: [Error, string][] = [
      [httpError(401, { message: 'Bad credentials' }), 'unauthorized'],
      [httpError(403, { message: 'Resource not accessible by integration' }), 'unauthorized'],
      [
        httpError(
          403,
          { message: 'API rate limit exceeded' },
          { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(Math.floor(Date.now() / 1000) + 30) },
        ),
        'rate_limited',
      ],
      [httpError(403, { message: 'You have exceeded a secondary rate limit' }), 'rate_limited'],
      [httpError(429, { message: 'slow down' }, { 'retry-after': '7' }), 'rate_limited'],
      [httpError(403, { message: 'too big', errors: [{ code: 'too_large' }] }), 'too_large'],
      [httpError(404, { message: 'Not Found' }), 'not_found'],
      [httpError(409, { message: 'Git Repository is empty.' }), 'empty_repository'],
      [httpError(409, { message: 'something else' }), 'conflict'],
      [httpError(422, { message: `Bad thing with ${TOKEN}` }), 'invalid'],
      [httpError(502, { message: 'Bad Gateway' }), 'unavailable'],
      [httpError(500, 'connect ECONNREFUSED'), 'unavailable'],
      [new TypeError('boom'), 'unavailable'],
    ];
    for (const [err, code] of cases) {
      const e = translate(err, redact);
      expect(e.code).toBe(code);
      expect(e.message).not.toContain(TOKEN);
    }
    expect(translate(httpError(429, { message: 'x' }, { 'retry-after': '7' }), redact)).toEqual({
      code: 'rate_limited',
      message: 'GitHub rate limit reached; retry after 7 s',
      retryAfterSeconds: 7,
    });
    expect(translate(new UpstreamFailure({ code: 'conflict', message: 'moved' }), redact)).toEqual({
      code: 'conflict',
      message: 'moved',
    });
  });
});

describe('redaction and the Octokit logger', () => {
  it('scrubs tokens, authorization headers and URL credentials', () => {
    expect(redact(`token ${TOKEN}`)).not.toContain(TOKEN);
    expect(redact(`{"authorization":"token abc"}`)).toBe('{"authorization":"[REDACTED]"}');
    expect(redact('https://user:pass@example.test/x?access_token=abc')).toBe(
      'https://[REDACTED]@example.test/x?access_token=[REDACTED]',
    );
    expect(redact('GitHub rejected the token; check it')).toBe('GitHub rejected the token; check it');
  });

  it('drops Octokit option objects and demotes expected request lines', () => {
    const lines: [LogLevel, string, unknown][] = [];
    const log = octokitLog((level, msg, fields) => lines.push([level, msg, fields]));
    log.debug('request', { headers: { authorization: `token ${TOKEN}` } });
    log.error('GET /repos/o/r/git/ref/heads%2Fmain - 304 with id X in 3ms');
    log.error('GET /repos/o/r - 503 with id X in 3ms');
    log.warn('odd', new Error('why'));
    expect(lines).toEqual([
      ['debug', 'GET /repos/o/r/git/ref/heads%2Fmain - 304 with id X in 3ms', undefined],
      ['warn', 'GET /repos/o/r - 503 with id X in 3ms', undefined],
      ['warn', 'odd', { error: 'why' }],
    ]);
  });
});

describe('content and names', () => {
  it('maps modes to entry kinds and parses owner/name', () => {
    expect(entryType({ mode: '120000', type: 'blob' })).toBe('symlink');
    expect(entryType({ mode: '160000', type: 'commit' })).toBe('submodule');
    expect(entryType({ mode: '040000', type: 'tree' })).toBe('dir');
    expect(entryType({ mode: '100755', type: 'blob' })).toBe('file');
    expect(parseRepo('Acme/Platform.git')).toEqual({ owner: 'Acme', repo: 'Platform', key: 'acme/platform' });
    for (const bad of ['acme', 'a/b/c', '../x', 'a/..', 'a b/c']) expect(() => parseRepo(bad)).toThrow(UpstreamFailure);
  });
});
