import { durationMsFromEnv } from '@gateway/config';
import { z } from 'zod';
import { appGuard, type ProviderPlugin } from '../provider-plugin';
import { SearchAdsAdapter } from './search-ads.adapter';

const env = {
  /** API host of search-ads; the sandbox's /search-ads locally (docs/providers.md). */
  SEARCH_ADS_API_URL: z
    .url({ protocol: /^https?$/ })
    .default('https://api.searchads.apple.com')
    .transform((value) => value.replace(/\/+$/, '')),
  /** Token host of search-ads; the sandbox's /search-ads-auth locally. */
  SEARCH_ADS_AUTH_URL: z
    .url({ protocol: /^https?$/ })
    .default('https://appleid.apple.com')
    .transform((value) => value.replace(/\/+$/, '')),
  /** search-ads needs no app of the gateway (each connection is its own API user); false turns it off. */
  SEARCH_ADS_ENABLED: z
    .enum(['true', 'false'])
    .default('true')
    .transform((value) => value === 'true'),
  /** Requests per second sent to search-ads in all; 0 = no guard (the platform limits per API user and hour). */
  SEARCH_ADS_QPS: z.coerce.number().min(0).default(20),
  /** Tokens (one hour) are minted again when they have less than this left. */
  SEARCH_ADS_RENEW_AHEAD_MS: durationMsFromEnv(300_000),
};

type Env = z.infer<z.ZodObject<typeof env>>;

export const SEARCH_ADS_PLUGIN: ProviderPlugin<Env> = {
  provider: 'search-ads',
  env,
  create: (config, shared) =>
    config.SEARCH_ADS_ENABLED
      ? new SearchAdsAdapter({
          apiBaseUrl: config.SEARCH_ADS_API_URL,
          authBaseUrl: config.SEARCH_ADS_AUTH_URL,
          guard: appGuard(config.SEARCH_ADS_QPS, 1, shared),
          renewAheadMs: config.SEARCH_ADS_RENEW_AHEAD_MS,
          now: shared.now,
        })
      : undefined,
};
