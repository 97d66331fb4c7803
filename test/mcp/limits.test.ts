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

describe('Gate under the process bound (issue 24)', () => {
  it('lets a lone perimeter use every process slot, then shares freed slots between perimeters in turn', async () => {
    const g = new Gate(4);
    const order: string[] = [];
    // A wide lane (its width is the process's) takes all four slots; six more of its calls wait.
    const running = await Promise.all(Array.from({ length: 4 }, () => g.enter('flood', 32, 64)!));
    const floodWaits = Array.from({ length: 6 }, (_, i) =>
      g.enter('flood', 32, 64)!.then((release) => (order.push(`flood${i}`), release)),
    );
    // Two quiet perimeters arrive after the flood queued: each gets the next free slot, not the flood's backlog.
    const quiet = ['q1', 'q2'].map((k) => g.enter(k, 32, 64)!.then((release) => (order.push(k), release)));
    expect(g.load('flood')).toEqual({ running: 4, waiting: 6 });
    for (const release of running) release();
    await Promise.all([...quiet, ...floodWaits.slice(0, 2)]);
    // Four freed slots went flood, q1, q2, flood: one each in turn, the flood's own order kept.
    expect(order).toEqual(['flood0', 'q1', 'q2', 'flood1']);
    expect(g.load('flood')).toEqual({ running: 2, waiting: 4 });
  });

  it('keeps an operator-set lane width below the process bound', async () => {
    const g = new Gate(8);
    const a = await g.enter('narrow', 2, 1);
    const b = await g.enter('narrow', 2, 1);
    const queued = g.enter('narrow', 2, 1);
    expect(g.enter('narrow', 2, 1)).toBeUndefined();
    expect(g.load('narrow')).toEqual({ running: 2, waiting: 1 });
    // Free process slots do not widen it: another lane still gets them.
    expect(await g.enter('other', 2, 1)).toBeTypeOf('function');
    a?.();
    (await queued)?.();
    b?.();
    expect(g.load('narrow')).toEqual({ running: 0, waiting: 0 });
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
