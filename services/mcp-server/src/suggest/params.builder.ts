import type { EndpointSpec } from '@gateway/catalogue';
import { suggestionPluginOf } from './plugin.registry';
import type { BuiltParams } from './suggestion.plugin';

/**
 * Parameters for an endpoint taken from a question, by the plugin of the endpoint's provider. A provider without a
 * plugin gets none: every required parameter is then reported as missing.
 */
export function buildParams(endpoint: EndpointSpec, question: string, today: Date): BuiltParams {
  return suggestionPluginOf(endpoint.provider)?.buildParams(endpoint, question, today) ?? { params: {}, notes: [] };
}
