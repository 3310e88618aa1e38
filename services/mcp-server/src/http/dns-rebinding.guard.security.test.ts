import type { NextFunction, Request, Response } from 'express';
import { defaultAllowedHosts, dnsRebindingGuard } from './dns-rebinding.guard';

function run(handler: ReturnType<typeof dnsRebindingGuard>['origin'], headers: Record<string, string>) {
  let status = 0;
  let passed = false;
  const res = {
    status(code: number) {
      status = code;
      return this;
    },
    json() {
      return this;
    },
  } as unknown as Response;
  handler({ headers } as Request, res, (() => (passed = true)) as NextFunction);
  return passed ? 'next' : status;
}

describe('DNS-rebinding protection', () => {
  it('allows the public host, and the loopback names only for a local server', () => {
    expect(defaultAllowedHosts('https://mcp.example.com/mcp', '0.0.0.0')).toEqual(['mcp.example.com']);
    expect(defaultAllowedHosts('http://127.0.0.1:8081/mcp', '127.0.0.1')).toEqual(['127.0.0.1', 'localhost', '[::1]']);
    expect(defaultAllowedHosts('https://mcp.example.com/mcp', '::1')).toEqual([
      'mcp.example.com',
      'localhost',
      '127.0.0.1',
      '[::1]',
    ]);
  });

  it('lets requests without Origin through and checks the others against the allowed hosts', () => {
    const { origin } = dnsRebindingGuard(['mcp.example.com'], []);
    expect(run(origin, {})).toBe('next');
    expect(run(origin, { origin: 'https://mcp.example.com' })).toBe('next');
    expect(run(origin, { origin: 'https://evil.example.com' })).toBe(403);
    expect(run(origin, { origin: 'null' })).toBe(403);
    expect(run(origin, { origin: 'chrome-extension://mcp.example.com' })).toBe(403);
  });

  it('uses ALLOWED_ORIGINS exactly when configured', () => {
    const { origin } = dnsRebindingGuard(['mcp.example.com'], ['https://app.example.com/']);
    expect(run(origin, { origin: 'https://app.example.com' })).toBe('next');
    expect(run(origin, { origin: 'https://mcp.example.com' })).toBe(403);
  });
});
