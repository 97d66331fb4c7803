// The request guard as a pure function: Host syntax, request-target form and Origin, before any route.
import { describe, expect, it } from 'vitest';
import { bareHostname, guardPolicy, judgeRequest } from '../../src/http/guard.js';

const loopback = guardPolicy({ host: '127.0.0.1' });
const judge = (host: string | undefined, o: { url?: string; origin?: string; port?: number } = {}) =>
  judgeRequest(loopback, { url: o.url ?? '/mcp/app', host, origin: o.origin, port: o.port ?? 7400 });

describe('bareHostname', () => {
  it('accepts host[:port] only', () => {
    expect(bareHostname('127.0.0.1:7400')).toBe('127.0.0.1');
    expect(bareHostname('LocalHost')).toBe('localhost');
    expect(bareHostname('[::1]:7400')).toBe('[::1]');
    expect(bareHostname('example.com.')).toBe('example.com');
    for (const bad of [
      undefined,
      '',
      '127.0.0.1:7400/mcp/root',
      'a@b',
      'a b',
      'a?b',
      'a#b',
      'a:1:2',
      'a:99999',
      '[::1',
      'a\\b',
      '-a',
      'a..b',
      ':7400',
    ]) {
      expect(bareHostname(bad), String(bad)).toBeUndefined();
    }
  });
});

describe('judgeRequest', () => {
  it('refuses non-path targets with 400, hostile Hosts with 400, foreign names with 403', () => {
    expect(judge('127.0.0.1:7400')).toEqual({ kind: 'pass' });
    expect(judge('127.0.0.1:7400', { url: 'http://127.0.0.1:7400/mcp/root' })).toMatchObject({ status: 400 });
    expect(judge('127.0.0.1:7400', { url: '//127.0.0.1/mcp/root' })).toMatchObject({ status: 400 });
    expect(judge('127.0.0.1:7400/mcp/root?')).toMatchObject({ status: 400 });
    expect(judge(undefined)).toMatchObject({ status: 400 });
    expect(judge('evil.example:7400')).toMatchObject({ status: 403 });
  });
  it("admits only the server's own origin", () => {
    expect(judge('localhost:7400', { origin: 'http://localhost:7400' })).toEqual({ kind: 'pass' });
    expect(judge('localhost:7400', { origin: 'http://[::1]:7400' })).toEqual({ kind: 'pass' });
    for (const origin of [
      'http://localhost:5173',
      'https://localhost:7400',
      'http://localhost',
      'null',
      'http://localhost:7400/x',
      'http://evil.example:7400',
    ]) {
      expect(judge('localhost:7400', { origin }), origin).toMatchObject({ status: 403 });
    }
  });
  it('admits configured names on their http(s) default ports and exact configured origins', () => {
    const p = guardPolicy({
      host: '0.0.0.0',
      allowedHosts: ['git.example'],
      allowedOrigins: ['git.example', 'https://console.example'],
    });
    const j = (origin: string) => judgeRequest(p, { url: '/mcp', host: 'git.example', origin, port: 7400 });
    for (const ok of ['https://git.example', 'http://git.example:7400', 'https://console.example'])
      expect(j(ok), ok).toEqual({ kind: 'pass' });
    for (const bad of ['https://git.example:8443', 'http://localhost:7400', 'https://console.example:444'])
      expect(j(bad), bad).toMatchObject({ status: 403 });
    expect(judgeRequest(p, { url: '/mcp', host: 'localhost:7400', origin: undefined, port: 7400 })).toMatchObject({
      status: 403,
    });
  });
});
