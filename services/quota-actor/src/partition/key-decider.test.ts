import type { DecisionRequest } from '@gateway/decisions';
import { DEFAULT_PLANS, type KeyDecisionRecord } from '@gateway/store';
import { sharesOf, type CustomerMonthShares } from '../limits/customer-month';
import { UsageCounter } from '../limits/usage-counter';
import { decideForKey, RESERVATION_WAIT_MS, type UsageAccess } from './key-decider';
import { applyRecord, buildKeyEntry, type KeyEntry } from './key-entry';

const NOW = Date.UTC(2026, 10, 22, 12, 0, 0);

function record(overrides: Partial<KeyDecisionRecord> = {}): KeyDecisionRecord {
  return {
    key_id: 'dg_live_abcdefgh',
    customer_id: 'cus_1',
    status: 'active',
    source: 'portal',
    providers: ['video-ads', 'marketplace'],
    account_ids: ['acct_a'],
    connections: [{ account_id: 'acct_a', provider: 'video-ads', status: 'active' }],
    ip_allowlist: [],
    plan: { ...DEFAULT_PLANS.trial, rate_limit_rps: 1000, rate_burst: 1000, monthly_quota: 3 },
    ...overrides,
  };
}

/**
 * A ledger in memory: reservations are granted up to the quota, less what the customer's other keys (`others`)
 * took; suggestions up to the allowance.
 */
function memoryUsage(initialUsed = 0, others: { used: number; suggestions: number } = { used: 0, suggestions: 0 }) {
  const shares = (): CustomerMonthShares =>
    sharesOf(
      NOW,
      new Map([['dg_live_other', { used: others.used, reserved: others.used, suggestions: others.suggestions }]]),
    );
  const access = {
    reserveCalls: 0,
    suggestionsTaken: 0,
    async open(entry: KeyEntry, month: string) {
      entry.usage = new UsageCounter(month, {
        used: initialUsed,
        reserved: initialUsed,
        suggestionsUsed: 0,
        carriedOver: 0,
      });
      return entry.usage;
    },
    async reserve(entry: KeyEntry, usage: UsageCounter, want: number) {
      access.reserveCalls++;
      const next = Math.min(entry.record!.plan.monthly_quota - others.used, usage.reserved + want);
      const grew = next > usage.reserved;
      usage.reserved = Math.max(usage.reserved, next);
      return grew;
    },
    async takeSuggestion(entry: KeyEntry) {
      if (others.suggestions + access.suggestionsTaken >= entry.record!.plan.suggestion_allowance) return false;
      access.suggestionsTaken++;
      return true;
    },
    customerShares: shares,
    readCustomerShares: async () => shares(),
  };
  return access satisfies UsageAccess;
}

const forward = (overrides: Partial<DecisionRequest> = {}): DecisionRequest => ({
  keyHash: 'h',
  ip: '127.0.0.1',
  intent: 'forward',
  provider: 'video-ads',
  pathAllowed: true,
  ...overrides,
});

async function decide(rec: KeyDecisionRecord | null, request: DecisionRequest, usage = memoryUsage()) {
  return decideForKey(buildKeyEntry('h', rec, NOW), request, NOW, usage);
}

describe('key decider', () => {
  it('admits a key with one connection without X-Account-Id and names that connection (spec 5.1 rule 1)', async () => {
    expect(await decide(record(), forward())).toMatchObject({ ok: true, accountId: 'acct_a' });
  });

  it('refuses unknown and revoked keys', async () => {
    expect(await decide(null, forward())).toMatchObject({ ok: false, code: 'invalid_api_key' });
    expect(await decide(record({ status: 'revoked' }), forward())).toMatchObject({ ok: false, code: 'key_revoked' });
  });

  it('checks the IP allowlist before anything counts (spec 5.1 rule 5)', async () => {
    const rec = record({ ip_allowlist: ['10.0.0.0/8', '2001:db8::/32'] });
    expect(await decide(rec, forward({ ip: '127.0.0.1' }))).toMatchObject({ code: 'ip_not_allowed' });
    expect(await decide(rec, forward({ ip: '10.1.2.3' }))).toMatchObject({ ok: true });
    expect(await decide(rec, forward({ ip: '2001:db8::7' }))).toMatchObject({ ok: true });
  });

  it('refuses a provider outside the key providers (spec 5.1 rule 4)', async () => {
    expect(await decide(record(), forward({ provider: 'search-ads' }))).toMatchObject({ code: 'provider_not_in_plan' });
    for (const provider of ['', 'video-ads ', 'VIDEO-ADS', 'video']) {
      expect(await decide(record(), forward({ provider }))).toMatchObject({ code: 'provider_not_in_plan' });
    }
    expect(await decide(record(), forward({ provider: undefined }))).toMatchObject({ code: 'provider_not_in_plan' });
  });

  it("follows a reload of the key's providers (applyRecord)", async () => {
    const entry = buildKeyEntry('h', record({ providers: ['search-ads'] }), NOW);
    const usage = memoryUsage();
    expect(await decideForKey(entry, forward(), NOW, usage)).toMatchObject({ code: 'provider_not_in_plan' });
    applyRecord(entry, record({ providers: ['search-ads', 'video-ads'] }), NOW);
    expect(await decideForKey(entry, forward(), NOW, usage)).toMatchObject({ ok: true });
  });

  it('refuses a path off the allowlist before looking at accounts', async () => {
    const several = record({
      account_ids: ['acct_a', 'acct_b'],
      connections: [
        { account_id: 'acct_a', provider: 'video-ads', status: 'active' },
        { account_id: 'acct_b', provider: 'video-ads', status: 'active' },
      ],
    });
    expect(await decide(several, forward({ pathAllowed: false }))).toMatchObject({ code: 'path_not_allowed' });
    expect(await decide(several, forward())).toMatchObject({ code: 'missing_account_id' });
    expect(await decide(several, forward({ accountId: 'acct_b' }))).toMatchObject({ ok: true, accountId: 'acct_b' });
  });

  it('refuses an account that is not the key connection, or of another provider (spec 5.1 rule 3)', async () => {
    const mixed = record({
      account_ids: ['acct_a', 'acct_m'],
      connections: [
        { account_id: 'acct_a', provider: 'video-ads', status: 'active' },
        { account_id: 'acct_m', provider: 'marketplace', status: 'active' },
      ],
    });
    expect(await decide(mixed, forward({ accountId: 'acct_zzz' }))).toMatchObject({ code: 'account_not_allowed' });
    expect(await decide(mixed, forward({ accountId: 'acct_m' }))).toMatchObject({ code: 'account_not_allowed' });
  });

  it('never admits beyond the quota in block mode and says when it resets', async () => {
    const entry = buildKeyEntry('h', record(), NOW);
    const usage = memoryUsage();
    const verdicts = [];
    for (let i = 0; i < 5; i++) verdicts.push(await decideForKey(entry, forward(), NOW + i, usage));
    expect(verdicts.map((v) => (v.ok ? 'ok' : v.code))).toEqual(['ok', 'ok', 'ok', 'quota_exceeded', 'quota_exceeded']);
    const refused = verdicts[3]!;
    expect(!refused.ok && refused.retryAfterSeconds).toBe(Math.ceil((Date.UTC(2026, 11, 1) - (NOW + 3)) / 1000));
  });

  it('admits beyond the quota in metered mode and reports the overage', async () => {
    const rec = record({ plan: { ...record().plan, overage_mode: 'metered' } });
    const entry = buildKeyEntry('h', rec, NOW);
    const usage = memoryUsage(3);
    const verdict = await decideForKey(entry, forward(), NOW, usage);
    expect(verdict).toMatchObject({ ok: true, quota: { used: 4, remaining: 0, overageMode: 'metered' } });
    expect(usage.reserveCalls).toBe(0);
  });

  it('describes the key with exactly the fields of spec 2.3 and does not count it', async () => {
    const entry = buildKeyEntry('h', record(), NOW);
    const usage = memoryUsage(2);
    const verdict = await decideForKey(entry, { keyHash: 'h', ip: '127.0.0.1', intent: 'describe' }, NOW, usage);
    expect(verdict.ok && Object.keys(verdict.description!).sort()).toEqual(
      [
        'accounts',
        'connections',
        'customer_id',
        'key_id',
        'monthly_quota',
        'overage_mode',
        'plan',
        'providers',
        'quota_used',
        'rate_limit_rps',
      ].sort(),
    );
    expect(verdict.ok && verdict.description!.quota_used).toBe(2);
    expect(entry.usage!.used).toBe(2);
  });

  it('rate-limits every request of a valid key, including the ones it then refuses', async () => {
    const rec = record({ plan: { ...record().plan, rate_limit_rps: 1, rate_burst: 2, monthly_quota: 100 } });
    const entry = buildKeyEntry('h', rec, NOW);
    const usage = memoryUsage();
    const first = await decideForKey(entry, forward({ pathAllowed: false }), NOW, usage);
    const second = await decideForKey(entry, { keyHash: 'h', ip: '127.0.0.1', intent: 'describe' }, NOW, usage);
    const third = await decideForKey(entry, forward(), NOW, usage);
    expect([first, second, third].map((v) => (v.ok ? 'ok' : v.code))).toEqual([
      'path_not_allowed',
      'ok',
      'rate_limited',
    ]);
    expect(!third.ok && third.retryAfterSeconds).toBe(1);
    expect(entry.usage!.used).toBe(0);
  });

  it('does not take a rate unit twice for one HTTP request (countRate: false)', async () => {
    const rec = record({ plan: { ...record().plan, rate_limit_rps: 1, rate_burst: 1, monthly_quota: 100 } });
    const entry = buildKeyEntry('h', rec, NOW);
    const usage = memoryUsage();
    const auth = await decideForKey(entry, { keyHash: 'h', ip: '127.0.0.1', intent: 'free' }, NOW, usage);
    const tool = await decideForKey(entry, forward({ countRate: false }), NOW, usage);
    expect([auth.ok, tool.ok]).toEqual([true, true]);
    expect(await decideForKey(entry, forward(), NOW, usage)).toMatchObject({ code: 'rate_limited' });
  });

  it('grants AI suggestions while the monthly allowance lasts', async () => {
    const rec = record({ plan: { ...record().plan, suggestion_allowance: 1 } });
    const entry = buildKeyEntry('h', rec, NOW);
    const usage = memoryUsage();
    const suggest: DecisionRequest = { keyHash: 'h', ip: '127.0.0.1', intent: 'suggest' };
    expect(await decideForKey(entry, suggest, NOW, usage)).toMatchObject({ suggestions: { granted: true, used: 1 } });
    expect(await decideForKey(entry, suggest, NOW, usage)).toMatchObject({ suggestions: { granted: false, used: 1 } });
  });

  describe("the customer's month (all keys of a customer share the plan's quota and allowance)", () => {
    it('admits only what the customer has left in block mode, and reports the customer total', async () => {
      const rec = record({ plan: { ...record().plan, monthly_quota: 10 } });
      const entry = buildKeyEntry('h', rec, NOW);
      const usage = memoryUsage(0, { used: 8, suggestions: 0 });
      const verdicts = [];
      for (let i = 0; i < 4; i++) verdicts.push(await decideForKey(entry, forward(), NOW + i, usage));
      expect(verdicts.map((v) => (v.ok ? 'ok' : v.code))).toEqual(['ok', 'ok', 'quota_exceeded', 'quota_exceeded']);
      expect(verdicts[1]).toMatchObject({ quota: { limit: 10, used: 10, remaining: 0 } });
      expect(verdicts[3]).toMatchObject({ quota: { remaining: 0 } });
    });

    it('asks the ledger again at most once a second after the allowance was found used up', async () => {
      const entry = buildKeyEntry('h', record(), NOW);
      const usage = memoryUsage(0, { used: 3, suggestions: 0 });
      await decideForKey(entry, forward(), NOW, usage);
      await decideForKey(entry, forward(), NOW + 10, usage);
      expect(usage.reserveCalls).toBe(1);
      await decideForKey(entry, forward(), NOW + 1_001, usage);
      expect(usage.reserveCalls).toBe(2);
    });

    it("reports the customer's quota_used in the description and the quota of metered answers", async () => {
      const rec = record({ plan: { ...record().plan, overage_mode: 'metered', monthly_quota: 100 } });
      const entry = buildKeyEntry('h', rec, NOW);
      const usage = memoryUsage(2, { used: 40, suggestions: 0 });
      const described = await decideForKey(entry, { keyHash: 'h', ip: '127.0.0.1', intent: 'describe' }, NOW, usage);
      expect(described).toMatchObject({ ok: true, description: { quota_used: 42 }, quota: { used: 42 } });
      expect(await decideForKey(entry, forward(), NOW, usage)).toMatchObject({ quota: { used: 43, remaining: 57 } });
    });

    it("counts the customer's suggestions from every key against one allowance", async () => {
      const rec = record({ plan: { ...record().plan, suggestion_allowance: 3 } });
      const entry = buildKeyEntry('h', rec, NOW);
      const usage = memoryUsage(0, { used: 0, suggestions: 2 });
      const suggest: DecisionRequest = { keyHash: 'h', ip: '127.0.0.1', intent: 'suggest' };
      expect(await decideForKey(entry, suggest, NOW, usage)).toMatchObject({
        suggestions: { allowance: 3, used: 3, granted: true },
      });
      expect(await decideForKey(entry, suggest, NOW, usage)).toMatchObject({
        suggestions: { granted: false, used: 3 },
      });
    });
  });

  describe('block-mode reservations', () => {
    it('tops the reservation up to a chunk once half is left: decisions do not wait, a crash loses one chunk at most', async () => {
      const rec = record({ plan: { ...record().plan, rate_limit_rps: 10, monthly_quota: 100 } });
      const entry = buildKeyEntry('h', rec, NOW);
      const usage = memoryUsage();
      await decideForKey(entry, forward(), NOW, usage); // opens the month and waits for the first chunk (10)
      expect(usage.reserveCalls).toBe(1);
      const synchronous = [];
      for (let i = 1; i < 10; i++) synchronous.push(decideForKey(entry, forward(), NOW + i, usage));
      expect(synchronous.every((verdict) => !(verdict instanceof Promise) && verdict.ok)).toBe(true);
      // Topped up once, at 5 left (used 5), by 5: never waited for, never more than a chunk (10) in hand.
      expect(usage.reserveCalls).toBe(2);
      expect(entry.usage!.reserved).toBe(15);
      expect(entry.usage!.reserved - entry.usage!.used).toBeLessThanOrEqual(10);
    });

    it('refuses with 503 when the ledger does not answer in time, and at once while that reservation is pending', async () => {
      jest.useFakeTimers();
      try {
        const entry = buildKeyEntry('h', record(), NOW);
        const usage = memoryUsage();
        await decideForKey(entry, forward(), NOW, usage);
        let release!: (granted: boolean) => void;
        usage.reserve = async () => new Promise<boolean>((resolve) => (release = resolve));
        entry.usage!.used = entry.usage!.reserved;
        const waiting = decideForKey(entry, forward(), NOW, usage);
        expect(waiting).toBeInstanceOf(Promise);
        await jest.advanceTimersByTimeAsync(RESERVATION_WAIT_MS);
        expect(await waiting).toMatchObject({ ok: false, code: 'service_unavailable', retryAfterSeconds: 1 });
        // The reservation is still under way: the next decisions do not wait again.
        const next = decideForKey(entry, forward(), NOW + RESERVATION_WAIT_MS, usage);
        expect(next).toMatchObject({ ok: false, code: 'service_unavailable' });
        release(true);
        await jest.advanceTimersByTimeAsync(0);
        expect(entry.usage!.reservation).toBeUndefined();
      } finally {
        jest.useRealTimers();
      }
    });
  });
});
