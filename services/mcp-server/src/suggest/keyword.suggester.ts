import {
  PROVIDER_IDS,
  findEndpoint,
  providerSpec,
  validateBody,
  type EndpointSpec,
  type ParamValue,
  type ProviderId,
} from '@gateway/catalogue';
import type { EndpointIndex } from './endpoint.index';
import { buildParams } from './params.builder';
import { suggestionPlugins } from './plugin.registry';
import type { BuiltParams, RankedEndpoint } from './suggestion.plugin';
import { checkSuggestion, type MissingParam } from './suggestion.validator';

export interface Suggestion {
  endpoint: EndpointSpec;
  params: Record<string, ParamValue>;
  /** The JSON body of a POST search, checked with the catalogue's validateBody. */
  body?: Record<string, unknown>;
  /** The concrete path to call when the endpoint's path is a template whose ids the question names. */
  path?: string;
  missing: MissingParam[];
  notes: string[];
}

export interface KeywordSuggestion {
  suggestion?: Suggestion;
  ranked: RankedEndpoint[];
}

/**
 * find_endpoint without AI: ranks the catalogue for the question (BM25), lets each provider's plugin narrow the
 * ranking where providers share words, proposes the best endpoint with the parameters its plugin takes from the
 * question, and checks them against the catalogue. When nothing matches, the starting endpoint (the catalogue's
 * startingPoint) of the provider the wording names, else of the first provider that has one, is proposed: every
 * other call starts from it.
 */
export function suggestByKeywords(
  index: EndpointIndex,
  question: string,
  today: Date,
  providers?: readonly ProviderId[],
): KeywordSuggestion {
  const ranked = suggestionPlugins().reduce<RankedEndpoint[]>(
    (current, plugin) => plugin.narrowRanking?.(question, current) ?? current,
    index.search(question, providers).map(({ item, score }) => ({ endpoint: item, score })),
  );
  let endpoint = ranked[0]?.endpoint;
  const notes: string[] = [];
  if (!endpoint) {
    const candidates = providers ?? PROVIDER_IDS;
    const first = suggestionPlugins().find((plugin) => plugin.namedBy?.(question))?.provider;
    const order =
      first && candidates.includes(first) ? [first, ...candidates.filter((id) => id !== first)] : candidates;
    endpoint = order.map(startingEndpoint).find(Boolean);
    if (!endpoint) return { ranked };
    notes.push(
      `No endpoint matched the question; ${endpoint.path} (${endpoint.title.toLowerCase()}) is the usual ` +
        `starting point of ${endpoint.provider}.`,
    );
  }
  const built = buildParams(endpoint, question, today);
  return { suggestion: checked(endpoint, { ...built, notes: [...notes, ...built.notes] }), ranked };
}

function startingEndpoint(provider: ProviderId): EndpointSpec | undefined {
  const spec = providerSpec(provider);
  return spec ? findEndpoint(provider, spec.startingPoint) : undefined;
}

/** Drops any built value the catalogue refuses (defensive: the builder only produces allowed values). */
function checked(endpoint: EndpointSpec, built: BuiltParams): Suggestion {
  const { params, notes, body } = built;
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
  const usableBody = body !== undefined && validateBody(endpoint, body).length === 0 ? body : undefined;
  return {
    endpoint,
    params: current,
    ...(usableBody ? { body: usableBody } : {}),
    ...(built.path !== undefined && findEndpoint(endpoint.provider, built.path) === endpoint
      ? { path: built.path }
      : {}),
    missing: [...(built.pathMissing ?? []), ...result.missing],
    notes,
  };
}
