import {
  PROVIDER_IDS,
  endpointsOf,
  findEndpoint,
  type EndpointSpec,
  type PagingSpec,
  type ParameterSpec,
} from '@gateway/catalogue';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { examplePathOf, lifecycleOf, lifecycleSchema, lifecycleSentence, pathIdsOf } from './endpoint-lifecycle';
import type { RequestContext, ToolDeps } from './tool-context';
import { toolError, toolOk } from './tool-result';
import { READ_ONLY_ANNOTATIONS, guarded } from './tool-support';

export const DESCRIBE_ENDPOINT = 'describe_endpoint';

export const ENCODING_RULE =
  'On the platform, an array or object parameter is ONE query parameter holding a JSON string, e.g. ' +
  'dimensions=["campaign_id","stat_time_day"]; repeating the name per element is not valid. call_endpoint does ' +
  'this for you: give arrays and objects either as JSON values or as their JSON strings.';

const paramSchema = z.object({
  name: z.string(),
  type: z.enum(['string', 'integer', 'date', 'enum', 'json-array', 'json-object']),
  required: z.boolean(),
  required_when: z.object({ param: z.string(), equals: z.string() }).optional(),
  description: z.string(),
  format: z.string().optional(),
  values: z.array(z.string()).optional().describe('Allowed values (of the items, for json-array).'),
  default: z.unknown().optional(),
  minimum: z.number().optional(),
  maximum: z.number().optional(),
  min_items: z.number().int().optional(),
  max_items: z.number().int().optional(),
  example: z.unknown(),
});

const inputSchema = z.object({
  provider: z.enum(PROVIDER_IDS).describe('Provider id, e.g. "video-ads".'),
  path: z
    .string()
    .min(1)
    .max(512)
    .describe(
      'Platform path as listed, e.g. "/v1.3/report/integrated/get/"; a template such as ' +
        '"/api/v5/campaigns/{campaignId}/adgroups" or a concrete path of it.',
    ),
});

const outputSchema = z.object({
  provider: z.string(),
  path: z.string(),
  method: z.enum(['GET', 'POST']).describe('POST: a search or report query that takes a JSON body, not a write.'),
  title: z.string(),
  summary: z.string(),
  returns: z.string(),
  lifecycle: lifecycleSchema.optional(),
  path_ids: z
    .array(z.object({ name: z.string(), format: z.string(), description: z.string() }))
    .optional()
    .describe('The {name} segments of a path template: ids to put in the path itself, not in params.'),
  params: z.array(paramSchema),
  encoding: z.string(),
  paging: z
    .object({
      style: z.enum(['page', 'page_no', 'cursor', 'offset']),
      page_param: z.string(),
      page_size_param: z.string(),
      default_page_size: z.number().int(),
      max_page_size: z.number().int(),
      page_info_path: z.string(),
      how: z.string(),
    })
    .optional(),
  body: z
    .object({ required: z.boolean(), description: z.string(), schema: z.unknown().optional(), example: z.unknown() })
    .optional(),
  example_call: z.object({
    tool: z.literal('call_endpoint'),
    arguments: z.object({
      provider: z.string(),
      path: z.string(),
      params: z.record(z.string(), z.unknown()),
      body: z.unknown().optional(),
    }),
  }),
});

/** spec 4.3: parameters, types, formats, defaults and limits of one endpoint, with an example call. Free. */
export function registerDescribeEndpoint(server: McpServer, deps: ToolDeps, ctx: RequestContext): void {
  server.registerTool(
    DESCRIBE_ENDPOINT,
    {
      title: 'Describe one endpoint',
      description:
        'Parameters of one endpoint from list_endpoints: names, types, formats (dates YYYY-MM-DD; array ' +
        'parameters are JSON-string arrays on the platform), allowed values, defaults, limits, paging, the ids a ' +
        'path template takes ({campaignId}: digits in the path), the retirement date of a deprecated API version, ' +
        'and an example call_endpoint call. Free: does not count toward the quota.',
      inputSchema,
      outputSchema,
      annotations: { ...READ_ONLY_ANNOTATIONS, openWorldHint: false },
    },
    ({ provider, path }) =>
      guarded(DESCRIBE_ENDPOINT, deps, ctx, async () => {
        // A concrete path matches its template; the template itself, as list_endpoints shows it, is looked up as is.
        const endpoint =
          findEndpoint(provider, path) ?? endpointsOf(provider).find((candidate) => candidate.path === path);
        if (!endpoint) {
          return toolError(
            'unknown_endpoint',
            `${path} is not an endpoint of ${provider} on the allowlist. list_endpoints shows the allowed paths.`,
          );
        }
        const described = describe(endpoint);
        const sentences = [
          ...(described.lifecycle ? [lifecycleSentence(endpoint, described.lifecycle)] : []),
          ...(described.path_ids ? [pathIdsSentence(endpoint)] : []),
        ];
        return toolOk(
          described,
          sentences.length > 0 ? `${sentences.join('\n')}\n\n${JSON.stringify(described)}` : undefined,
        );
      }),
  );
}

export function describe(endpoint: EndpointSpec) {
  const lifecycle = lifecycleOf(endpoint);
  const ids = pathIdsOf(endpoint.path);
  return {
    provider: endpoint.provider,
    path: endpoint.path,
    method: endpoint.method,
    title: endpoint.title,
    summary: endpoint.summary,
    returns: endpoint.returns,
    ...(lifecycle ? { lifecycle } : {}),
    ...(ids.length > 0
      ? {
          path_ids: ids.map((name) => ({
            name,
            format: 'digits (1 to 20), in the path',
            description: `Replace {${name}} in the path with the real id; call_endpoint's path is the concrete path.`,
          })),
        }
      : {}),
    params: endpoint.params.map(describeParam),
    encoding: ENCODING_RULE,
    ...(endpoint.paging ? { paging: describePaging(endpoint.paging) } : {}),
    ...(endpoint.body
      ? {
          body: {
            required: endpoint.body.required,
            description: endpoint.body.description,
            ...(endpoint.body.schema ? { schema: z.toJSONSchema(endpoint.body.schema) } : {}),
            example: endpoint.body.example,
          },
        }
      : {}),
    example_call: { tool: 'call_endpoint' as const, arguments: exampleCall(endpoint) },
  };
}

/** The path template's ids in one sentence, with an example of the concrete path. */
function pathIdsSentence(endpoint: EndpointSpec): string {
  const names = pathIdsOf(endpoint.path).map((name) => `{${name}}`);
  return (
    `Path template: ${names.join(' and ')} ${names.length > 1 ? 'are ids' : 'is an id'} (digits) to put in the ` +
    `path itself, not in params; call_endpoint takes the concrete path, e.g. ${examplePathOf(endpoint.path)}.`
  );
}

const TRUNCATION_HINT = 'Large pages may come back truncated: then lower the page size or narrow the date range.';

/** How to page this endpoint, in the platform's own terms. */
function describePaging(paging: PagingSpec) {
  switch (paging.style) {
    case 'page':
      return {
        style: paging.style,
        page_param: paging.pageParam,
        page_size_param: paging.pageSizeParam,
        default_page_size: paging.defaultPageSize,
        max_page_size: paging.maxPageSize,
        page_info_path: paging.pageInfoPath,
        how: `Read ${paging.pageInfoPath}.total_page and request ${paging.pageParam} from 1 to that value. ${TRUNCATION_HINT}`,
      };
    case 'page_no':
      return {
        style: paging.style,
        page_param: paging.pageParam,
        page_size_param: paging.pageSizeParam,
        default_page_size: paging.defaultPageSize,
        max_page_size: paging.maxPageSize,
        page_info_path: paging.moreFlagPath,
        how: `Request ${paging.pageParam} from 1 while ${paging.moreFlagPath} is true. ${TRUNCATION_HINT}`,
      };
    case 'cursor':
      return {
        style: paging.style,
        page_param: paging.cursorParam,
        page_size_param: paging.pageSizeParam,
        default_page_size: paging.defaultPageSize,
        max_page_size: paging.maxPageSize,
        page_info_path: paging.nextCursorPath,
        how:
          `Leave ${paging.cursorParam} out for the first page, then pass ${paging.nextCursorPath} of each answer as ` +
          `${paging.cursorParam} until it comes back empty. ${TRUNCATION_HINT}`,
      };
    case 'offset':
      return {
        style: paging.style,
        page_param: paging.offsetParam,
        page_size_param: paging.limitParam,
        default_page_size: paging.defaultPageSize,
        max_page_size: paging.maxPageSize,
        page_info_path: paging.moreFlagPath,
        how:
          `Start at ${paging.offsetParam}=0 and add ${paging.limitParam} while ${paging.moreFlagPath} says more ` +
          `records follow. ${TRUNCATION_HINT}`,
      };
  }
}

function pageSizeParamOf(paging: PagingSpec): string {
  return paging.style === 'offset' ? paging.limitParam : paging.pageSizeParam;
}

function describeParam(param: ParameterSpec) {
  return {
    name: param.name,
    type: param.type,
    required: param.required,
    ...(param.requiredWhen
      ? { required_when: { param: param.requiredWhen.param, equals: param.requiredWhen.equals } }
      : {}),
    description: param.description,
    ...(param.format ? { format: param.format } : {}),
    ...(param.type === 'json-array' ? { format: 'JSON array of strings, sent as one parameter' } : {}),
    ...(param.type === 'json-object' ? { format: 'JSON object, sent as one parameter' } : {}),
    ...(param.type === 'csv' ? { format: 'comma-joined values in one parameter (or an array)' } : {}),
    ...(param.type === 'repeated'
      ? { format: 'an array of values, sent as the parameter repeated, one per value' }
      : {}),
    ...(param.values ? { values: [...param.values] } : {}),
    ...(param.default !== undefined ? { default: param.default } : {}),
    ...(param.minimum !== undefined ? { minimum: param.minimum } : {}),
    ...(param.maximum !== undefined ? { maximum: param.maximum } : {}),
    ...(param.minItems !== undefined ? { min_items: param.minItems } : {}),
    ...(param.maxItems !== undefined ? { max_items: param.maxItems } : {}),
    example: param.example,
  };
}

/** The required parameters (and the conditionally required ones their example triggers), with their examples. */
function exampleCall(endpoint: EndpointSpec) {
  const params: Record<string, unknown> = {};
  for (const param of endpoint.params) {
    if (param.required) params[param.name] = param.example;
  }
  for (const param of endpoint.params) {
    if (param.requiredWhen && String(params[param.requiredWhen.param]) === param.requiredWhen.equals) {
      params[param.name] = param.example;
    }
  }
  if (endpoint.paging && endpoint.params.some((param) => param.name === pageSizeParamOf(endpoint.paging!))) {
    const name = pageSizeParamOf(endpoint.paging);
    params[name] = Math.min(100, endpoint.paging.maxPageSize);
  }
  return {
    provider: endpoint.provider,
    // call_endpoint takes the concrete path: a template's ids are shown as example digits.
    path: examplePathOf(endpoint.path),
    params,
    // A search's filters are what the call is about: show them even when the body is optional.
    ...(endpoint.body?.example !== undefined ? { body: endpoint.body.example } : {}),
  };
}
