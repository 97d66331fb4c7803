// Result ids of the search/fetch aliases (issue 26): deterministic for one plaintext, bound to their key, never
// interchangeable with change cursors, and refused when any byte (IV included) was changed.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { cursorSeal } from '../../src/mcp/index.js';

describe('cursorSeal result ids', () => {
  const seal = cursorSeal(randomBytes(32));
  const plain = JSON.stringify({ v: 1, who: 'agent:p', repo: 'r', branch: 'main', path: 'a.ts' });

  it('are deterministic and open to what they seal', () => {
    const id = seal.sealId(plain);
    expect(seal.sealId(plain)).toBe(id);
    expect(id).toMatch(/^gbi1\./);
    expect(seal.openId(id)).toBe(plain);
    expect(seal.sealId(`${plain} `)).not.toBe(id);
  });

  it('do not open under another key, nor as cursors, and cursors do not open as ids', () => {
    const id = seal.sealId(plain);
    expect(cursorSeal(randomBytes(32)).openId(id)).toBeUndefined();
    expect(seal.open(id)).toBeUndefined();
    expect(seal.open(`gbc1.${id.slice(5)}`)).toBeUndefined();
    const cursor = seal.seal(plain);
    expect(seal.openId(cursor)).toBeUndefined();
    expect(seal.openId(`gbi1.${cursor.slice(5)}`)).toBeUndefined();
  });

  it('refuse any changed byte, and an IV that is not the MAC of the plaintext', () => {
    const raw = Buffer.from(seal.sealId(plain).slice(5), 'base64url');
    for (const i of [0, 11, 12, raw.length - 1]) {
      const bad = Buffer.from(raw);
      bad[i] = (bad[i] ?? 0) ^ 1;
      expect(seal.openId(`gbi1.${bad.toString('base64url')}`)).toBeUndefined();
    }
    expect(seal.openId('gbi1.')).toBeUndefined();
    expect(seal.openId(`gbi1.${'A'.repeat(9000)}`)).toBeUndefined();
  });
});
