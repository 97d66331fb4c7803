// Page pieces rendered on their own: bounds that hold whatever an agent (or a request URL in the ledger) sends.
import { describe, expect, it } from 'vitest';
import { consolePage } from '../../src/http/web/pages/console.js';
import { fileBox, filePage, INLINE_LINE_CHARS } from '../../src/http/web/render-diff.js';
import type { FileDiff } from '../../src/http/web/filediffs.js';
import { hunks } from '../../src/http/web/linediff.js';

const file = (after: string): FileDiff => {
  const lines = hunks('', after);
  return {
    path: 'min.js',
    change: 'added',
    lines,
    added: lines.length - 1,
    removed: 0,
    notes: [],
    symlinkChange: false,
  };
};

describe('diff rendering bounds', () => {
  it('a 1 MB one-line file is cut on the proposal page and whole in the file view', () => {
    const f = file('x'.repeat(1_000_000));
    const inline = fileBox('p1', 0, f).toString();
    expect(inline.length).toBeLessThan(INLINE_LINE_CHARS + 2_000);
    expect(inline).toContain(`${1_000_000 - INLINE_LINE_CHARS} more characters in the file view`);
    expect(inline).toContain('/ui/proposals/p1/files/0?from=0');
    expect(filePage('p1', 0, f, 0).toString()).toContain('x'.repeat(1_000_000));
  });

  it('a 10,000-line file puts at most 400 lines on the proposal page and 1,000 on a file page', () => {
    const f = file(Array.from({ length: 10_000 }, (_, i) => `l${i}`).join('\n'));
    const count = (s: string) => s.split('<span class="l').length - 1;
    expect(count(fileBox('p1', 0, f).toString())).toBe(400);
    expect(count(filePage('p1', 0, f, 9_500).toString())).toBe(501);
    expect(count(filePage('p1', 0, f, 99_999).toString())).toBe(1);
  });
});

describe('console', () => {
  it('shows ledger entries as text: an /api route is whatever URL a caller sent', () => {
    const out = consolePage({
      perimeters: [],
      sessions: { root: 1 },
      webSessions: 1,
      upstreams: [{ kind: 'local', ok: false, detail: '<i>git</i> missing' }],
      audit: [
        {
          ts: '2026-12-01T00:00:00.000Z',
          surface: 'api',
          tool: 'GET /api/<script>alert(1)</script>\u202E',
          verdict: 'deny',
          result: '401',
        },
      ],
      pending: 0,
    }).toString();
    expect(out).toContain('GET /api/&lt;script&gt;alert(1)&lt;/script&gt;⟨U+202E⟩');
    expect(out).toContain('&lt;i&gt;git&lt;/i&gt; missing');
    expect(out).not.toContain('<script');
  });
});
