import type { SuggestionPlugin } from '../../suggestion.plugin';
import { asksForSearchAds, preferSearchAds } from './search-ads-intent.extractor';
import { buildSearchAdsParams } from './search-ads-params.builder';

// search-ads shares "campaign" and "spend" with video-ads: only its own words (taps, installs, keywords) pick it.
export const SEARCH_ADS_PLUGIN: SuggestionPlugin = {
  provider: 'search-ads',
  buildParams: buildSearchAdsParams,
  namedBy: asksForSearchAds,
  narrowRanking: preferSearchAds,
};
