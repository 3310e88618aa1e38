import type { ProviderId } from '@gateway/catalogue';

/** The three partner apps of the marketplace platform (docs/providers.md): one shop, three grants. */
export const MARKETPLACE_APPS: readonly ProviderId[] = ['marketplace', 'marketplace-ads', 'marketplace-affiliate'];

// Affiliate wording first: "affiliate sales", "affiliate orders" and "KOL clicks" are affiliate questions even though
// they also name seller or ads words.
const AFFILIATE = /\baffiliat\w*|\bkols?\b|\bams\b|\bcommissions?\b|\binfluencers?\b|\bcreators?\b/;
const ADS =
  /\bads?\b|\badverti\w*|\bcampaigns?\b|\bspen[dt]\w*|\broas\b|\bcpc\b|\bimpressions?\b|\bclicks?\b|\bctr\b|\bexpenses?\b|\bad credit\b|\bbalance\b|\bbudget\b|\btop[- ]?up\b/;
const SELLER =
  /\borders?\b|\bitems?\b|\bproducts?\b|\blistings?\b|\bstock\b|\bskus?\b|\bshop info\b|\bshop name\b|\bmy shop\b|\bsales\b|\bshipp?\w*/;

/**
 * Which marketplace app a question is about, from its wording: affiliate words win, then advertising words, then
 * seller words; undefined when it names none of them (the ranking alone decides then).
 */
export function marketplaceAppOf(question: string): ProviderId | undefined {
  const text = question.toLowerCase();
  if (AFFILIATE.test(text)) return 'marketplace-affiliate';
  if (ADS.test(text)) return 'marketplace-ads';
  if (SELLER.test(text)) return 'marketplace';
  return undefined;
}

/**
 * Keeps the ranking to `app` when the wording names it and the candidates hold endpoints of several marketplace
 * apps: endpoints of the other two apps are dropped (other providers keep their places). Unchanged when the wording
 * names another app or none, or no endpoint of `app` matched.
 */
export function preferMarketplaceApp<T extends { provider: ProviderId }>(
  app: ProviderId,
  question: string,
  ranked: readonly { endpoint: T; score: number }[],
): { endpoint: T; score: number }[] {
  if (marketplaceAppOf(question) !== app || !ranked.some((entry) => entry.endpoint.provider === app)) {
    return [...ranked];
  }
  return ranked.filter(
    (entry) => entry.endpoint.provider === app || !MARKETPLACE_APPS.includes(entry.endpoint.provider),
  );
}
