import { DEFAULT_PLANS } from './plan.defaults';
import { PROVIDER_IDS } from './providers';

describe('default plans', () => {
  it('offer every provider on every plan', () => {
    for (const plan of Object.values(DEFAULT_PLANS))
      expect([...plan.providers].sort()).toEqual([...PROVIDER_IDS].sort());
  });

  it('grow in every limit from trial to business, and only business is metered', () => {
    const { trial, growth, business } = DEFAULT_PLANS;
    for (const field of ['rate_limit_rps', 'rate_burst', 'monthly_quota', 'connection_allowance'] as const) {
      expect(trial[field]).toBeLessThan(growth[field]);
      expect(growth[field]).toBeLessThan(business[field]);
    }
    expect([trial.overage_mode, growth.overage_mode, business.overage_mode]).toEqual(['block', 'block', 'metered']);
    expect([trial.mcp_tier, growth.mcp_tier, business.mcp_tier]).toEqual(['basic', 'normalised', 'data_assistant']);
  });

  it('keep a burst of at least one second of rate', () => {
    for (const plan of Object.values(DEFAULT_PLANS))
      expect(plan.rate_burst).toBeGreaterThanOrEqual(plan.rate_limit_rps);
  });
});
