import { apiVersionOf, type EndpointSpec } from '@gateway/catalogue';
import { z } from 'zod';

/** The retirement of an endpoint's API version, as assistants see it (REST answers carry Deprecation and Sunset). */
export const lifecycleSchema = z
  .object({
    api_version: z.string(),
    deprecated_since: z.string().optional().describe('ISO date from which the gateway marks the version deprecated.'),
    sunset: z.string().optional().describe('ISO date the platform retires the version; calls fail after it.'),
    notice: z.string().optional(),
    migration_doc: z.string().optional(),
    migration: z.array(z.string()).optional().describe('What a caller does about the retirement, step by step.'),
  })
  .describe('The API version of this endpoint is being retired: plan for the sunset date.');

export type Lifecycle = z.infer<typeof lifecycleSchema>;

/** The lifecycle of the endpoint's API version when it is deprecated or has a sunset date; undefined otherwise. */
export function lifecycleOf(endpoint: EndpointSpec): Lifecycle | undefined {
  const version = apiVersionOf(endpoint);
  if (!version || (version.deprecatedSince === undefined && version.sunset === undefined)) return undefined;
  return {
    api_version: version.name,
    ...(version.deprecatedSince !== undefined ? { deprecated_since: version.deprecatedSince } : {}),
    ...(version.sunset !== undefined ? { sunset: version.sunset } : {}),
    ...(version.notice !== undefined ? { notice: version.notice } : {}),
    ...(version.migrationDoc !== undefined ? { migration_doc: version.migrationDoc } : {}),
    ...(version.migration !== undefined ? { migration: [...version.migration] } : {}),
  };
}

/** One sentence for the text of a tool result. */
export function lifecycleSentence(endpoint: EndpointSpec, lifecycle: Lifecycle): string {
  const when = lifecycle.sunset ? ` on ${lifecycle.sunset}` : '';
  const since = lifecycle.deprecated_since ? ` (deprecated since ${lifecycle.deprecated_since})` : '';
  return (
    `Deprecation: ${endpoint.provider} API ${lifecycle.api_version} is retired by the platform${when}${since}; ` +
    `calls to ${endpoint.path} fail after that date.${lifecycle.notice ? ` ${lifecycle.notice}` : ''}`
  );
}

const PATH_ID = /\{([A-Za-z][A-Za-z0-9_]*)\}/g;

/** The `{name}` segments of a path template (ids, digits only); empty for a plain path. */
export function pathIdsOf(path: string): string[] {
  return [...path.matchAll(PATH_ID)].map((match) => match[1]!);
}

/** The template with example digit ids in place of its `{name}` segments (call_endpoint takes concrete paths). */
export function examplePathOf(path: string): string {
  let n = 0;
  return path.replace(PATH_ID, () => String(1234567890 + 1111 * n++));
}
