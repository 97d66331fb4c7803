// The per-perimeter lanes and the limiter's refund, on their own (the issue 9 tests drive them through the server).
import { describe, expect, it } from 'vitest';
import { Gate, RateLimiter } from '../../src/mcp/index.js';

describe('Gate', () => {
  it('runs max at once, queues up to the bound in order, refuses beyond, and frees the lane', async () => {
    const g = new Gate();
    const order: string[] = [];
    const first = await g.enter('p', 1, 2);
    const queued = ['a', 'b'].map((n) => g.enter('p', 1, 2)?.then((release) => (order.push(n), release)));
    expect(g.enter('p', 1, 2)).toBeUndefined();
    expect(g.enter('other', 1, 2)).toBeDefined(); // another perimeter has its own lane
    expect(g.load('p')).toEqual({ running: 1, waiting: 2 });
    first?.();
    first?.(); // a second release is a no-op, not a free slot
    const a = await queued[0];
    expect(order).toEqual(['a']);
    expect(g.load('p')).toEqual({ running: 1, waiting: 1 });
    a?.();
    (await queued[1])?.();
    expect(order).toEqual(['a', 'b']);
    expect(g.load('p')).toEqual({ running: 0, waiting: 0 });
  });
});

describe('RateLimiter.give', () => {
  it('returns one event to the current window', () => {
    const l = new RateLimiter(() => 0);
    expect(l.take('k', 1, 1000)).toBeUndefined();
    expect(l.take('k', 1, 1000)).toBe(1);
    l.give('k');
    expect(l.take('k', 1, 1000)).toBeUndefined();
  });
});
