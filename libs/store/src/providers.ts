/** Provider ids of spec section 1, used the same way in keys, plans and connections. */
export const PROVIDER_IDS = [
  'video-ads',
  'video-shop',
  'marketplace',
  'marketplace-ads',
  'marketplace-affiliate',
  'search-ads',
] as const;

export type ProviderId = (typeof PROVIDER_IDS)[number];

export function isProviderId(value: string): value is ProviderId {
  return (PROVIDER_IDS as readonly string[]).includes(value);
}
