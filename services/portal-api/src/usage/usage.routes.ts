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
  .meta({ id: 'Plan', description: 'Limits apply per key (docs/rest.md, "Limits")' });

const KeyUsageSchema = z
  .object({
    key_id: z.string(),
    name: z.string(),
    quota_used: z.number().int().meta({ description: 'Counted this month, including what rotation carried over' }),
    days: z
      .array(z.object({ day: z.string().regex(/^\d{2}$/), count: z.number().int() }))
      .meta({ description: 'Requests per UTC day of the month, of this key and the keys it replaced' }),
  })
  .meta({ id: 'KeyUsage' });

/**
 * Rotation keeps the month's count on the new key but leaves the per-day counts with the old one (store
 * carryOver), so a key's chart sums the days of the whole chain of keys it replaced.
 */
function predecessors(keys: ApiKeySummary[], keyId: string): string[] {
  const chain = [keyId];
  for (let current = keyId, guard = 0; guard < keys.length; guard += 1) {
    const previous = keys.find((key) => key.replaced_by === current);
    if (!previous) break;
    chain.push(previous.key_id);
    current = previous.key_id;
  }
  return chain;
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
      summary: "Each active key's usage this month (UTC), per day, against the plan's monthly quota",
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
        keys: z.array(KeyUsageSchema),
      }),
      handler: async (ctx) => {
        const { customerId } = signedIn(ctx);
        const month = ctx.query.month ?? usageMonth(new Date());
        const [year, monthNumber] = month.split('-').map(Number) as [number, number];
        const plan = await planOf(customerId);
        const keys = await deps.store.apiKeys.listByCustomer(customerId);
        const usage = await Promise.all(
          keys
            .filter((key) => key.status === 'active')
            .map(async (key) => {
              const records = await Promise.all(
                predecessors(keys, key.key_id).map((keyId) => deps.store.usage.get(keyId, month)),
              );
              const days = new Map<string, number>();
              for (const record of records) {
                for (const [day, count] of Object.entries(record.days)) days.set(day, (days.get(day) ?? 0) + count);
              }
              return {
                key_id: key.key_id,
                name: key.name,
                quota_used: records[0]!.used,
                days: [...days.entries()]
                  .sort(([a], [b]) => a.localeCompare(b))
                  .map(([day, count]) => ({ day, count })),
              };
            }),
        );
        return {
          month,
          days_in_month: new Date(Date.UTC(year, monthNumber, 0)).getUTCDate(),
          monthly_quota: plan.monthly_quota,
          rate_limit_rps: plan.rate_limit_rps,
          keys: usage,
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
