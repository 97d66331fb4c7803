// The one check of the ops token: per-source back-off that grows, never answers a right token while a source waits,
// forgets after its window, and keys IPv6 sources by /64.
import { describe, expect, it } from 'vitest';
import { OpsGate, sourceKey, type OpsCheckEvent } from '../../src/http/ops-gate.js';

const TOKEN = 'gbo_0123456789abcdefghijklmnopqrstuv';

function gate() {
  let t = 1_000_000;
  const events: OpsCheckEvent[] = [];
  const g = new OpsGate({ token: TOKEN, now: () => t, record: (e) => events.push(e) });
  const at = (address: string, token: string | undefined) =>
    g.check(token, { surface: 'api', route: 'GET /api/health', address });
  return { g, events, at, advance: (ms: number) => (t += ms) };
}

describe('OpsGate', () => {
  it('lets five wrong tokens through as wrong, then backs off for a doubling delay', () => {
    const { at, advance } = gate();
    for (let i = 0; i < 5; i++) expect(at('10.0.0.1', 'guess').kind).toBe('wrong');
    expect(at('10.0.0.1', 'guess').kind).toBe('wrong'); // the sixth failure starts a 1 s back-off
    expect(at('10.0.0.1', TOKEN)).toEqual({ kind: 'wait', retryAfterSeconds: 1 });
    advance(1_000);
    expect(at('10.0.0.1', 'guess').kind).toBe('wrong'); // seventh: 2 s
    expect(at('10.0.0.1', 'guess')).toEqual({ kind: 'wait', retryAfterSeconds: 2 });
    advance(2_000);
    expect(at('10.0.0.1', 'guess').kind).toBe('wrong'); // eighth: 4 s
    expect(at('10.0.0.1', TOKEN)).toEqual({ kind: 'wait', retryAfterSeconds: 4 });
    // Another source is not slowed by this one.
    expect(at('10.0.0.2', TOKEN).kind).toBe('ok');
    advance(4_000);
    expect(at('10.0.0.1', TOKEN).kind).toBe('ok');
    // A right token clears the count: five more free failures.
    for (let i = 0; i < 5; i++) expect(at('10.0.0.1', 'guess').kind).toBe('wrong');
    expect(at('10.0.0.1', TOKEN).kind).toBe('ok');
  });

  it('caps the delay at 15 minutes and forgets a source 15 minutes after its last failure', () => {
    const { at, advance } = gate();
    for (let i = 0; i < 200; i++) {
      at('10.0.0.3', 'guess');
      advance(60_000);
    }
    // Step until the current block ends: the next failure starts the longest back-off there is.
    while (at('10.0.0.3', 'guess').kind === 'wait') advance(1_000);
    expect(at('10.0.0.3', TOKEN)).toEqual({ kind: 'wait', retryAfterSeconds: 900 });
    // Both the block and the window after the last failure are over: the source starts afresh with five free failures.
    advance(15 * 60_000 + 1);
    for (let i = 0; i < 5; i++) expect(at('10.0.0.3', 'guess').kind).toBe('wrong');
    expect(at('10.0.0.3', TOKEN).kind).toBe('ok');
  });

  it('does not count a request without a token, and records every check with its source', () => {
    const { at, events } = gate();
    for (let i = 0; i < 20; i++) expect(at('10.0.0.4', undefined).kind).toBe('wrong');
    expect(at('10.0.0.4', TOKEN).kind).toBe('ok');
    expect(events).toHaveLength(21);
    expect(events.at(-1)).toMatchObject({
      surface: 'api',
      route: 'GET /api/health',
      source: '10.0.0.4',
      outcome: 'ok',
    });
  });

  it('keys IPv6 sources by their /64 and IPv4-mapped addresses as IPv4', () => {
    expect(sourceKey('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1:2::/64');
    expect(sourceKey('2001:db8:1:2:bbbb:cccc:dddd:eeee')).toBe('2001:db8:1:2::/64');
    expect(sourceKey('::1')).toBe('0:0:0:0::/64');
    expect(sourceKey('::ffff:127.0.0.1')).toBe('127.0.0.1');
    const { at } = gate();
    for (let i = 0; i < 6; i++) at(`2001:db8:1:2::${i + 1}`, 'guess');
    expect(at('2001:db8:1:2::99', TOKEN).kind).toBe('wait');
  });

  it('refuses to guard with a token shorter than 128 bits', () => {
    expect(() => new OpsGate({ token: 'test-ops-token-0123456789' })).toThrow(/at least 32/);
  });
});
