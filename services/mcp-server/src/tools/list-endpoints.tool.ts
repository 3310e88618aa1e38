import { allProviders, type ProviderSpec } from '@gateway/catalogue';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { lifecycleOf, lifecycleSchema, pathIdsOf } from './endpoint-lifecycle';
import { refusal } from './refusal';
import type { RequestContext, ToolDeps } from './tool-context';
import { nextMonthStart, toolOk } from './tool-result';
import { READ_ONLY_ANNOTATIONS, decide, guarded } from './tool-support';

export const LIST_ENDPOINTS = 'list_endpoints';

const outputSchema = z.object({
  providers: z
    .array(
      z.object({
        provider: z.string(),
        title: z.string(),
        connection_unit: z.string(),
        endpoints: z.number().int().describe('How many endpoints of this provider are open; 0: none yet.'),
        deprecations: z
          .array(lifecycleSchema)
          .optional()
          .describe('API versions of this provider that the platform retires, with their sunset dates.'),
      }),
    )
    .describe("The key's providers."),
  endpoints: z.array(
    z.object({
      provider: z.string(),
      path: z.string(),
      title: z.string(),
      summary: z.string(),
      required_params: z.array(z.string()),
      path_ids: z
        .array(z.string())
        .optional()
        .describe('The {name} segments of a path template: digit ids that call_endpoint takes in the path itself.'),
      paged: z.boolean(),
      lifecycle: lifecycleSchema.optional(),
    }),
  ),
  connections: z
    .array(z.object({ provider: z.string(), account_id: z.string() }))
    .describe('The connections of the key; pass account_id to call_endpoint when there are several.'),
  quota: z.object({
    monthly_quota: z.number().int(),
    quota_used: z.number().int(),
    remaining: z.number().int(),
    resets_at: z.string(),
  }),
  next_step: z.string(),
});

/** spec 4.3: the endpoints the key's plan can call, the key's connections and the remaining quota. Free. */
export function registerListEndpoints(server: McpServer, deps: ToolDeps, ctx: RequestContext): void {
  server.registerTool(
    LIST_ENDPOINTS,
    {
      title: 'List callable endpoints, connections and quota',
      description:
        'Start here. Lists the platform endpoints this key can call (provider, path, what it returns, required ' +
        'parameters), the connections of the key (provider and account_id) and the remaining monthly quota. ' +
        'Free: does not count toward the quota. Usual order: list_endpoints, then find_endpoint when the ' +
        'question is ambiguous (or describe_endpoint for the parameters of a path), then call_endpoint.',
      outputSchema,
      annotations: { ...READ_ONLY_ANNOTATIONS, openWorldHint: false },
    },
    () =>
      guarded(LIST_ENDPOINTS, deps, ctx, async () => {
        // The free decision that admitted the request carries no key description; this one does (no rate unit).
        const verdict = await decide(deps, ctx, 'describe');
        const now = deps.now();
        if (!verdict.ok) return refusal(verdict, { now });
        const description = verdict.description!;
        const providers: ProviderSpec[] = allProviders().filter((spec) => description.providers.includes(spec.id));
        const endpoints = providers.flatMap((spec) =>
          spec.endpoints.map((endpoint) => {
            const lifecycle = lifecycleOf(endpoint);
            const ids = pathIdsOf(endpoint.path);
            return {
              provider: endpoint.provider,
              path: endpoint.path,
              title: endpoint.title,
              summary: endpoint.summary,
              required_params: endpoint.params
                .filter((param) => param.required || param.requiredWhen)
                .map((param) =>
                  param.requiredWhen
                    ? `${param.name} (when ${param.requiredWhen.param}=${param.requiredWhen.equals})`
                    : param.name,
                ),
              ...(ids.length > 0 ? { path_ids: ids } : {}),
              paged: endpoint.paging !== undefined,
              ...(lifecycle ? { lifecycle } : {}),
            };
          }),
        );
        const listed = providers.map((spec) => {
          const deprecations = deprecationsOf(spec);
          return {
            provider: spec.id,
            title: spec.title,
            connection_unit: spec.connectionUnit,
            endpoints: spec.endpoints.length,
            ...(deprecations.length > 0 ? { deprecations } : {}),
          };
        });
        const structured = {
          providers: listed,
          endpoints,
          connections: description.accounts,
          quota: {
            monthly_quota: verdict.quota.limit,
            quota_used: verdict.quota.used,
            remaining: verdict.quota.remaining,
            resets_at: nextMonthStart(now),
          },
          next_step: nextStep(providers),
        };
        const sentences = listed.flatMap((spec) =>
          (spec.deprecations ?? []).map(
            (version) =>
              `Deprecation: ${spec.provider} API ${version.api_version}${version.sunset ? ` is retired by the platform on ${version.sunset}` : ' is deprecated'}` +
              `${version.deprecated_since ? ` (deprecated since ${version.deprecated_since})` : ''}.` +
              `${version.notice ? ` ${version.notice}` : ''}`,
          ),
        );
        return toolOk(
          structured,
          sentences.length > 0 ? `${sentences.join('\n')}\n\n${JSON.stringify(structured)}` : undefined,
        );
      }),
  );
}

/** The provider's API versions that are deprecated or have a sunset date. */
function deprecationsOf(spec: ProviderSpec) {
  return (spec.apiVersions ?? [])
    .filter((version) => version.deprecatedSince !== undefined || version.sunset !== undefined)
    .map((version) => ({
      api_version: version.name,
      ...(version.deprecatedSince !== undefined ? { deprecated_since: version.deprecatedSince } : {}),
      ...(version.sunset !== undefined ? { sunset: version.sunset } : {}),
      ...(version.notice !== undefined ? { notice: version.notice } : {}),
      ...(version.migrationDoc !== undefined ? { migration_doc: version.migrationDoc } : {}),
    }));
}

/** Where each of the key's providers starts (its catalogue's startingPoint), then the usual tools. */
export function nextStep(providers: readonly ProviderSpec[]): string {
  const open = providers.filter((spec) => spec.endpoints.length > 0);
  if (open.length === 0) return 'This key has no callable endpoints yet.';
  const starts = open.map((spec) => {
    const start = spec.endpoints.find((endpoint) => endpoint.path === spec.startingPoint);
    return `${spec.id}: ${spec.startingPoint}${start ? ` (${start.title.toLowerCase()})` : ''}`;
  });
  return (
    `Most questions start with the provider's starting endpoint (${starts.join('; ')}), then a report, search or ` +
    'list endpoint. Use find_endpoint for a question in plain words, describe_endpoint for parameters.'
  );
}
