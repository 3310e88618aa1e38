import type { ProviderId } from '@gateway/catalogue';

/**
 * Words that only the search-ads platform uses (docs/providers.md, search-ads): taps, installs, CPT and TTR are its
 * metrics, keywords and organizations its objects. "campaign", "spend" or "impressions" alone say nothing: the
 * video-ads report answers those too.
 */
const SEARCH_ADS =
  /\bsearch[- ]ads\b|\bapple\b|\bapp store\b|\btaps?\b|\btapped\b|\binstalls?\b|\bdownloads?\b|\bcpt\b|\bttr\b|\bcpi\b|\bkeywords?\b|\bsearch terms?\b|\bmatch types?\b|\borgs?\b|\borgani[sz]ations?\b|\bacls?\b/;

/** Whether the wording names something only search-ads has. */
export function asksForSearchAds(question: string): boolean {
  return SEARCH_ADS.test(question.toLowerCase());
}

/**
 * Drops search-ads endpoints of one object by id (/api/v5/campaigns/{campaignId}) when the question names no id.
 * When the candidates hold endpoints of search-ads and of other providers (a key with video-ads and search-ads),
 * the wording decides: search-ads words keep search-ads only, otherwise search-ads endpoints are dropped so that
 * "spend per campaign last week" stays the video-ads report. Otherwise unchanged when only one side matched.
 */
export function preferSearchAds<T extends { provider: ProviderId; path: string }>(
  question: string,
  ranked: readonly { endpoint: T; score: number }[],
): { endpoint: T; score: number }[] {
  // "list my campaigns" is not the one campaign by id: a path ending in an id needs that id in the question.
  const named = /\b\d{1,20}\b/.test(question);
  const candidates = ranked.filter(
    (entry) => named || entry.endpoint.provider !== 'search-ads' || !/\/\{[^/]+\}$/.test(entry.endpoint.path),
  );
  const ours = candidates.filter((entry) => entry.endpoint.provider === 'search-ads');
  const others = candidates.filter((entry) => entry.endpoint.provider !== 'search-ads');
  if (ours.length === 0 || others.length === 0) return candidates;
  return asksForSearchAds(question) ? ours : others;
}
