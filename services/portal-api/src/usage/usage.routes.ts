import { usageMonth, type ApiKeySummary } from '@gateway/store';
import { z } from 'zod';
import { defineRoute, signedIn, type ApiRoute } from '../http/api-route';
import { PlanNameSchema, ProviderIdSchema } from '../http/api.schemas';
import type { PortalDeps } from '../portal.deps';

const PlanSchema = z
  .object({
    name: PlanNameSchema,
    providers: z.array(ProviderIdSchema),
    rate_limit_rps: z.number().int(),
    rate_burst: z.number().int(),
    monthly_quota: z.number().int(),
    overage_mode: z.enum(['block', 'metered']),
    connection_allowance: z.number().int(),
    mcp_tier: z.enum(['basic', 'normalised', 'data_assistant']),
  })
  .meta({
    id: 'Plan',
    description:
      "The rate applies per key; the monthly quota (and the suggestion allowance) is the customer's, shared by all " +
      'its keys (docs/rest.md, "Limits")',
  });

const KeyUsageSchema = z
  .object({
    key_id: z.string(),
    name: z.string(),
    status: z.enum(['active', 'revoked', 'rotated']).meta({
      description: 'rotated: revoked by a rotation (another key replaced it). Its units stay in the total',
    }),
    quota_used: z.number().int().meta({
      description:
        "The key's own share of the customer's month: what it counted itself (never what rotation carried into it)",
    }),
    share: z.object({
      used: z.number().int().meta({ description: 'The same as quota_used' }),
      share_percent: z.number().meta({ description: 'Of total.used, rounded to one decimal; 0 when the total is 0' }),
    }),
    days: z
      .array(z.object({ day: z.string().regex(/^\d{2}$/), count: z.number().int() }))
      .meta({ description: 'Requests of this key per UTC day of the month' }),
  })
  .meta({ id: 'KeyUsage' });

const UsageTotalSchema = z
  .object({
    used: z.number().int().meta({ description: "Requests of all the customer's keys this month" }),
    suggestions_used: z.number().int().meta({ description: 'find_endpoint AI suggestions of all the keys' }),
    monthly_quota: z.number().int(),
    suggestion_allowance: z.number().int(),
    remaining: z.number().int().meta({ description: 'monthly_quota minus used, 0 when used reached it' }),
  })
  .meta({
    id: 'UsageTotal',
    description: "The customer's month: one quota and one suggestion allowance shared by all its keys",
  });

/** Percent of `total`, to one decimal. */
function percentOf(used: number, total: number): number {
  return total === 0 ? 0 : Math.round((used / total) * 1000) / 10;
}

function statusOf(key: ApiKeySummary): 'active' | 'revoked' | 'rotated' {
  if (key.status === 'active') return 'active';
  return key.replaced_by === null ? 'revoked' : 'rotated';
}

export function usageRoutes(deps: PortalDeps): ApiRoute[] {
  const planOf = async (customerId: string) => {
    const customer = await deps.store.customers.findById(customerId);
    const plan = customer ? await deps.store.plans.findByName(customer.plan) : null;
    if (plan === null) throw new Error(`customer ${customerId} has no plan`);
    return plan;
  };

  return [
    defineRoute({
      method: 'get',
      path: '/api/plan',
      operationId: 'getPlan',
      summary: 'The plan: providers, rate, quota, connection allowance, MCP tier',
      tag: 'usage',
      auth: 'session',
      status: 200,
      response: z.object({ plan: PlanSchema, connections_used: z.number().int() }),
      handler: async (ctx) => {
        const { customerId } = signedIn(ctx);
        const plan = await planOf(customerId);
        return {
          plan: {
            name: plan.name,
            providers: plan.providers,
            rate_limit_rps: plan.rate_limit_rps,
            rate_burst: plan.rate_burst,
            monthly_quota: plan.monthly_quota,
            overage_mode: plan.overage_mode,
            connection_allowance: plan.connection_allowance,
            mcp_tier: plan.mcp_tier,
          },
          connections_used: await deps.store.connections.countByCustomer(customerId),
        };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/api/usage',
      operationId: 'getUsage',
      summary:
        "The customer's month (UTC) against the plan's monthly quota, which all its keys share, and each key's share",
      tag: 'usage',
      auth: 'session',
      query: z.object({
        month: z
          .string()
          .regex(/^\d{4}-(0[1-9]|1[0-2])$/, 'must be YYYY-MM')
          .optional(),
      }),
      status: 200,
      response: z.object({
        month: z.string(),
        days_in_month: z.number().int(),
        monthly_quota: z.number().int(),
        rate_limit_rps: z.number().int(),
        total: UsageTotalSchema,
        keys: z.array(KeyUsageSchema).meta({
          description:
            'Every active key, and the revoked and rotated keys that counted in the month (their units stay spent), ' +
            'so the shares add up to the total',
        }),
      }),
      handler: async (ctx) => {
        const { customerId } = signedIn(ctx);
        const month = ctx.query.month ?? usageMonth(new Date());
        const [year, monthNumber] = month.split('-').map(Number) as [number, number];
        const plan = await planOf(customerId);
        const keys = await deps.store.apiKeys.listByCustomer(customerId);
        const usage = await deps.store.usage.customerMonth(
          keys.map((key) => key.key_id),
          month,
        );
        const shares = new Map(usage.keys.map((share) => [share.key_id, share]));
        const listed = keys.flatMap((key) => {
          const share = shares.get(key.key_id);
          const used = share?.used ?? 0;
          const counted = used > 0 || (share?.suggestions_used ?? 0) > 0;
          if (key.status !== 'active' && !counted) return [];
          return [
            {
              key_id: key.key_id,
              name: key.name,
              status: statusOf(key),
              quota_used: used,
              share: { used, share_percent: percentOf(used, usage.used) },
              days: Object.entries(share?.days ?? {})
                .sort(([a], [b]) => a.localeCompare(b))
                .map(([day, count]) => ({ day, count })),
            },
          ];
        });
        return {
          month,
          days_in_month: new Date(Date.UTC(year, monthNumber, 0)).getUTCDate(),
          monthly_quota: plan.monthly_quota,
          rate_limit_rps: plan.rate_limit_rps,
          total: {
            used: usage.used,
            suggestions_used: usage.suggestions_used,
            monthly_quota: plan.monthly_quota,
            suggestion_allowance: plan.suggestion_allowance,
            remaining: Math.max(0, plan.monthly_quota - usage.used),
          },
          keys: listed,
        };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/api/mcp',
      operationId: 'getMcpSettings',
      summary: 'The MCP address ({mcp_url}) and the REST base address ({base_url}) to configure clients with',
      tag: 'usage',
      auth: 'session',
      status: 200,
      response: z.object({ mcp_url: z.string(), rest_base_url: z.string() }),
      handler: async () => ({ mcp_url: deps.mcpUrl, rest_base_url: deps.restBaseUrl }),
    }),
  ];
}
