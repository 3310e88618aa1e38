import { PROVIDER_IDS, findEndpoint, type EndpointSpec, type ParamValue, type ProviderId } from '@gateway/catalogue';
import type { EndpointIndex } from './endpoint.index';
import { buildParams } from './params.builder';
import { checkSuggestion, type MissingParam } from './suggestion.validator';

export interface Suggestion {
  endpoint: EndpointSpec;
  params: Record<string, ParamValue>;
  missing: MissingParam[];
  notes: string[];
}

export interface RankedEndpoint {
  endpoint: EndpointSpec;
  score: number;
}

export interface KeywordSuggestion {
  suggestion?: Suggestion;
  ranked: RankedEndpoint[];
}

const STARTING_POINT = '/v1.3/oauth2/advertiser/get/';

/**
 * find_endpoint without AI: ranks the catalogue for the question (BM25), proposes the best endpoint with the
 * parameters the question gives, and checks them against the catalogue. When nothing matches, the advertiser
 * listing is proposed: every other call starts from it.
 */
export function suggestByKeywords(
  index: EndpointIndex,
  question: string,
  today: Date,
  providers?: readonly ProviderId[],
): KeywordSuggestion {
  const ranked = index.search(question, providers).map(({ item, score }) => ({ endpoint: item, score }));
  let endpoint = ranked[0]?.endpoint;
  const notes: string[] = [];
  if (!endpoint) {
    endpoint = (providers ?? PROVIDER_IDS).map((provider) => findEndpoint(provider, STARTING_POINT)).find(Boolean);
    if (!endpoint) return { ranked };
    notes.push('No endpoint matched the question; the advertiser listing is the usual starting point.');
  }
  const built = buildParams(endpoint, question, today);
  return { suggestion: checked(endpoint, built.params, [...notes, ...built.notes]), ranked };
}

/** Drops any built value the catalogue refuses (defensive: the builder only produces allowed values). */
function checked(endpoint: EndpointSpec, params: Record<string, ParamValue>, notes: string[]): Suggestion {
  let current = { ...params };
  let result = checkSuggestion(endpoint, current);
  if (result.problems.length > 0) {
    const refused = new Set(
      endpoint.params.map((param) => param.name).filter((name) => result.problems.some((p) => p.startsWith(name))),
    );
    current = Object.fromEntries(Object.entries(current).filter(([name]) => !refused.has(name)));
    result = checkSuggestion(endpoint, current);
    if (result.problems.length > 0) {
      current = {};
      result = checkSuggestion(endpoint, current);
    }
  }
  return { endpoint, params: current, missing: result.missing, notes };
}
