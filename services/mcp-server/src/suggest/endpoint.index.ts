import { allProviders, type EndpointSpec, type ProviderId } from '@gateway/catalogue';
import { Bm25Ranker, type RankedDocument } from './bm25.ranker';

/**
 * The catalogue as a search index for find_endpoint: a match in the title or the keywords (the words people use
 * for the data) counts most, the summary less, parameter names and descriptions least.
 */
export class EndpointIndex {
  private readonly ranker: Bm25Ranker<EndpointSpec>;

  constructor(endpoints: readonly EndpointSpec[] = allProviders().flatMap((provider) => provider.endpoints)) {
    this.ranker = new Bm25Ranker(endpoints, (endpoint) => [
      { text: endpoint.title, weight: 3 },
      { text: endpoint.keywords.join(' '), weight: 3 },
      { text: endpoint.summary, weight: 1.5 },
      { text: endpoint.params.map((param) => `${param.name} ${param.description}`).join(' '), weight: 0.5 },
    ]);
  }

  /** Endpoints matching the question, best first, restricted to `providers` when given. */
  search(question: string, providers?: readonly ProviderId[]): RankedDocument<EndpointSpec>[] {
    const ranked = this.ranker.rank(question);
    return providers ? ranked.filter((entry) => providers.includes(entry.item.provider)) : ranked;
  }
}
