import type { EndpointSpec, ParamValue, ProviderId } from '@gateway/catalogue';
import type { MissingParam } from './suggestion.validator';

export interface BuiltParams {
  params: Record<string, ParamValue>;
  /** The JSON body of a POST search or report query, when the endpoint takes one. */
  body?: Record<string, unknown>;
  /** The concrete path when the endpoint's path is a template and the question names its ids. */
  path?: string;
  /** Ids of a path template the question does not name: they go in the path, not in params. */
  pathMissing?: MissingParam[];
  /** What was assumed or adjusted, in plain words for the assistant. */
  notes: string[];
}

export interface RankedEndpoint {
  endpoint: EndpointSpec;
  score: number;
}

/**
 * What find_endpoint's keyword matching knows about one provider. The generic code (ranking, dispatch, checks)
 * asks the registered plugin of an endpoint's provider and never branches on a provider id itself.
 */
export interface SuggestionPlugin {
  provider: ProviderId;
  /**
   * Parameters for one of the provider's endpoints taken from a question. Only values the catalogue allows are
   * produced; what the question cannot give is left out for the caller to report as missing.
   */
  buildParams(endpoint: EndpointSpec, question: string, today: Date): BuiltParams;
  /** Whether the wording names this provider: when no endpoint matched, its starting endpoint is proposed first. */
  namedBy?(question: string): boolean;
  /** Reorders or narrows a ranking over several providers whose words overlap this provider's. */
  narrowRanking?(question: string, ranked: readonly RankedEndpoint[]): RankedEndpoint[];
  /** Where the assistant gets a required parameter that a question cannot supply, by parameter name. */
  howToGet?: Readonly<Record<string, string>>;
}
