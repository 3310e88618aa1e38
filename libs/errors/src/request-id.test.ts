import { requestIdOf } from './request-id';

describe('requestIdOf', () => {
  it("keeps a caller's plain token", () => {
    expect(requestIdOf('trace-7f3a.b:9_x')).toBe('trace-7f3a.b:9_x');
  });

  it.each([undefined, '', 'has space', 'x'.repeat(129), '<script>', ['a', 'b']])('makes an id for %p', (header) => {
    expect(requestIdOf(header)).toMatch(/^req_[0-9a-f]{32}$/);
  });

  it('makes a different id every time, past each refill of its random bytes', () => {
    const ids = new Set(Array.from({ length: 1_000 }, () => requestIdOf(undefined)));
    expect(ids.size).toBe(1_000);
  });
});
