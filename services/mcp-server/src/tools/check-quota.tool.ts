import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { RequestContext, ToolDeps } from './tool-context';
import { nextMonthStart, toolOk } from './tool-result';
import { refusal } from './refusal';
import { READ_ONLY_ANNOTATIONS, decide, guarded } from './tool-support';

export const CHECK_QUOTA = 'check_quota';

const outputSchema = z.object({
  monthly_quota: z.number().int(),
  quota_used: z.number().int(),
  remaining: z.number().int(),
  overage_mode: z.string().describe('block: requests beyond the quota are refused; metered: counted and billed.'),
  resets_at: z.string().describe('Start of the next calendar month (UTC), when the count starts again.'),
  resets_in_seconds: z.number().int(),
  suggestions: z
    .object({ allowance: z.number().int(), used: z.number().int(), remaining: z.number().int() })
    .describe("find_endpoint's monthly allowance of AI suggestions."),
  rate: z.object({ limit: z.number().int(), remaining: z.number().int() }).describe('Requests per burst window.'),
});

/** spec 4.3: the customer's monthly quota, when it resets and the suggestion allowance. Free. */
export function registerCheckQuota(server: McpServer, deps: ToolDeps, ctx: RequestContext): void {
  server.registerTool(
    CHECK_QUOTA,
    {
      title: 'Check the monthly quota',
      description:
        "Monthly quota of the customer's plan, shared by all the customer's keys: requests allowed, used and " +
        'remaining (call_endpoint and REST calls count one each, whatever the number of rows), when it resets, and ' +
        'the remaining AI suggestions of find_endpoint (also shared). ' +
        'Free: does not count toward the quota.',
      outputSchema,
      annotations: { ...READ_ONLY_ANNOTATIONS, openWorldHint: false },
    },
    () =>
      guarded(CHECK_QUOTA, deps, ctx, async () => {
        // The customer's month read now (every node writes its counts first), not the admitting verdict's figures,
        // which may leave out the last second of the customer's other keys.
        const described = await decide(deps, ctx, 'describe');
        if (!described.ok) return refusal(described, { now: deps.now() });
        const { quota, suggestions } = described;
        const { rate } = ctx.verdict;
        const allowance = suggestions?.allowance ?? 0;
        const used = suggestions?.used ?? 0;
        return toolOk({
          monthly_quota: quota.limit,
          quota_used: quota.used,
          remaining: quota.remaining,
          overage_mode: quota.overageMode,
          resets_at: nextMonthStart(deps.now()),
          resets_in_seconds: quota.resetSeconds,
          suggestions: { allowance, used, remaining: Math.max(0, allowance - used) },
          rate: { limit: rate.limit, remaining: rate.remaining },
        });
      }),
  );
}
