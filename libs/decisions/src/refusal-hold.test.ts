import { RefusalHold } from './refusal-hold';
import type { DecisionRequest, Reject } from './verdict';

const KEY = 'a'.repeat(64);
const T0 = 1_000_000;

const forward = (overrides: Partial<DecisionRequest> = {}): DecisionRequest => ({
  keyHash: KEY,
  ip: '10.0.0.1',
  intent: 'forward',
  provider: 'video-ads',
  pathAllowed: true,
  accountId: 'acct_1',
  ...overrides,
});

const rateLimited: Reject = {
  ok: false,
  code: 'rate_limited',
  keyId: 'dg_live_k',
  retryAfterSeconds: 1,
  rate: { limit: 10, windowSeconds: 2, remaining: 0, resetSeconds: 2 },
  quota: { limit: 100, used: 5, remaining: 95, resetSeconds: 86_400, overageMode: 'block' },
  holdMs: 400,
};

const quotaExceeded: Reject = {
  ok: false,
  code: 'quota_exceeded',
  keyId: 'dg_live_k',
  retryAfterSeconds: 86_400,
  quota: { limit: 100, used: 100, remaining: 0, resetSeconds: 86_400, overageMode: 'block' },
  holdMs: 60_000,
};

describe('RefusalHold', () => {
  it('repeats a rate refusal until the owner said the bucket has a unit again, counted from when it was asked', () => {
    const hold = new RefusalHold();
    hold.remember(forward(), rateLimited, T0, T0 + 30);
    expect(hold.refusalFor(forward(), T0 + 100)).toMatchObject({ code: 'rate_limited', retryAfterSeconds: 1 });
    expect(hold.refusalFor(forward({ intent: 'describe' }), T0 + 399)).toMatchObject({ code: 'rate_limited' });
    expect(hold.refusalFor(forward(), T0 + 400)).toBeUndefined();
  });

  it('holds a rate refusal only for the same address and for requests that take a rate unit', () => {
    const hold = new RefusalHold();
    hold.remember(forward(), rateLimited, T0, T0);
    // The owner checks the allowlist before the rate: another address must be asked.
    expect(hold.refusalFor(forward({ ip: '10.0.0.2' }), T0 + 1)).toBeUndefined();
    expect(hold.refusalFor(forward({ countRate: false }), T0 + 1)).toBeUndefined();
    hold.remember(forward({ countRate: false }), rateLimited, T0, T0);
    expect(hold.refusalFor(forward(), T0 + 1)).toBeDefined();
  });

  it('holds a quota refusal only for forwards to the same provider and account from the same address', () => {
    const hold = new RefusalHold();
    hold.remember(forward(), quotaExceeded, T0, T0);
    expect(hold.refusalFor(forward(), T0 + 1_000)).toMatchObject({ code: 'quota_exceeded' });
    for (const other of [
      forward({ intent: 'describe' }),
      forward({ provider: 'search-ads' }),
      forward({ accountId: 'acct_2' }),
      forward({ pathAllowed: false }),
      forward({ ip: '10.0.0.9' }),
    ]) {
      expect(hold.refusalFor(other, T0 + 1_000)).toBeUndefined();
    }
  });

  it('holds an unknown key whatever the request', () => {
    const hold = new RefusalHold();
    hold.remember(forward(), { ok: false, code: 'invalid_api_key', holdMs: 5_000 }, T0, T0);
    expect(hold.refusalFor(forward({ intent: 'free', ip: '::1' }), T0 + 4_999)).toMatchObject({
      code: 'invalid_api_key',
    });
  });

  it('never holds what the owner did not say it holds, nor the other codes', () => {
    const hold = new RefusalHold();
    hold.remember(forward(), { ...rateLimited, holdMs: undefined }, T0, T0);
    hold.remember(forward(), { ok: false, code: 'key_revoked', holdMs: 10_000 }, T0, T0);
    hold.remember(forward(), { ok: false, code: 'service_unavailable', holdMs: 10_000 }, T0, T0);
    expect(hold.refusalFor(forward(), T0 + 1)).toBeUndefined();
    // A hold that already ended by the time the answer came.
    hold.remember(forward(), rateLimited, T0, T0 + 500);
    expect(hold.size).toBe(0);
  });

  it('drops the holds of a key that changed', () => {
    const hold = new RefusalHold();
    hold.remember(forward(), quotaExceeded, T0, T0);
    hold.forget(KEY);
    expect(hold.refusalFor(forward(), T0 + 1)).toBeUndefined();
  });

  it('states the waits as the owner would now: shortened by the time since the answer', () => {
    const hold = new RefusalHold();
    hold.remember(forward(), quotaExceeded, T0, T0);
    const later = hold.refusalFor(forward(), T0 + 10_000)!;
    expect(later.retryAfterSeconds).toBe(86_390);
    expect(later.quota!.resetSeconds).toBe(86_390);
    expect(later.holdMs).toBe(50_000);
  });

  it('hands out the same rate and quota states while their reset is the same second, new ones once it changes', () => {
    const hold = new RefusalHold();
    hold.remember(forward(), quotaExceeded, T0, T0);
    const first = hold.refusalFor(forward(), T0 + 100)!;
    const sameSecond = hold.refusalFor(forward(), T0 + 900)!;
    expect(sameSecond.quota).toBe(first.quota);
    expect(sameSecond.holdMs).toBe(59_100);
    const nextSecond = hold.refusalFor(forward(), T0 + 1_100)!;
    expect(nextSecond.quota).not.toBe(first.quota);
    expect(nextSecond.quota).toEqual({ ...quotaExceeded.quota, resetSeconds: 86_399 });
    expect(first.quota).toEqual({ ...quotaExceeded.quota, resetSeconds: 86_400 });
  });

  it('keeps at most maxKeys holds, dropping ended ones first', () => {
    const hold = new RefusalHold(2);
    hold.remember(forward({ keyHash: 'b'.repeat(64) }), rateLimited, T0, T0);
    hold.remember(forward({ keyHash: 'c'.repeat(64) }), quotaExceeded, T0, T0);
    hold.remember(forward({ keyHash: 'd'.repeat(64) }), quotaExceeded, T0 + 500, T0 + 500);
    expect(hold.size).toBe(2);
    expect(hold.refusalFor(forward({ keyHash: 'd'.repeat(64) }), T0 + 501)).toBeDefined();
  });
});
