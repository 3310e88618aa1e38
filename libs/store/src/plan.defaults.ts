import type { Plan, PlanName } from './plan.model';
import { PROVIDER_IDS } from './providers';

/**
 * The documented default plans (spec 8 leaves the values open; these are ours). `seedDefaultPlans()`
 * writes exactly these, and docs and tests cite this constant rather than repeating the numbers.
 */
export const DEFAULT_PLANS: Readonly<Record<PlanName, Readonly<Plan>>> = {
  trial: {
    name: 'trial',
    providers: [...PROVIDER_IDS],
    rate_limit_rps: 5,
    rate_burst: 10,
    monthly_quota: 10_000,
    overage_mode: 'block',
    connection_allowance: 3,
    mcp_tier: 'basic',
    suggestion_allowance: 50,
  },
  growth: {
    name: 'growth',
    providers: [...PROVIDER_IDS],
    rate_limit_rps: 25,
    rate_burst: 50,
    monthly_quota: 250_000,
    overage_mode: 'block',
    connection_allowance: 15,
    mcp_tier: 'normalised',
    suggestion_allowance: 1_000,
  },
  business: {
    name: 'business',
    providers: [...PROVIDER_IDS],
    rate_limit_rps: 100,
    rate_burst: 200,
    monthly_quota: 2_000_000,
    overage_mode: 'metered',
    connection_allowance: 100,
    mcp_tier: 'data_assistant',
    suggestion_allowance: 10_000,
  },
};
