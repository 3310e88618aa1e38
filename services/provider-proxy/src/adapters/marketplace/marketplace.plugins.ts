import { durationMsFromEnv } from '@gateway/config';
import { z } from 'zod';
import { appGuard, type ProviderPlugin, type SharedAdapterSettings } from '../provider-plugin';
import {
  MARKETPLACE_REFRESH_TOKEN_LIFETIME_MS,
  MarketplaceAdapter,
  type MarketplaceProvider,
} from './marketplace.adapter';

/** The platform host all three apps call; the sandbox's /marketplace locally. */
const baseUrl = z
  .url({ protocol: /^https?$/ })
  .default('https://partner.shopeemobile.com')
  .transform((value) => value.replace(/\/+$/, ''));

const sharedEnv = {
  /** Host of the marketplace platform (all three apps); docs/providers.md. */
  MARKETPLACE_BASE_URL: baseUrl,
  /** Access tokens (4 hours) are refreshed when they have less than this left. */
  MARKETPLACE_RENEW_AHEAD_MS: durationMsFromEnv(600_000),
  /** How long a refresh token lives from its issue (the platform's answer does not say; 30 days). */
  MARKETPLACE_REFRESH_TOKEN_LIFETIME_MS: durationMsFromEnv(MARKETPLACE_REFRESH_TOKEN_LIFETIME_MS),
};

/** One app's variables: partner id and key (unset: the provider is not served), and its QPS. */
function appEnv(prefix: string) {
  return {
    /** The gateway's partner id for this app; unset: the provider is not served by this deployment. */
    [`${prefix}_PARTNER_ID`]: z.string().regex(/^\d+$/, 'must be digits').optional(),
    /** The partner key of that app: signs every call. Never logged. */
    [`${prefix}_PARTNER_KEY`]: z.string().min(1).optional(),
    /** Requests per second the app may send; 0 = no guard. */
    [`${prefix}_APP_QPS`]: z.coerce.number().min(0).default(10),
  };
}

function plugin(provider: MarketplaceProvider, prefix: string): ProviderPlugin<Record<string, unknown>> {
  return {
    provider,
    env: { ...sharedEnv, ...appEnv(prefix) },
    create: (config, shared: SharedAdapterSettings) => {
      const partnerId = config[`${prefix}_PARTNER_ID`] as string | undefined;
      const partnerKey = config[`${prefix}_PARTNER_KEY`] as string | undefined;
      if (partnerId === undefined || partnerKey === undefined) return undefined;
      return new MarketplaceAdapter({
        provider,
        baseUrl: config['MARKETPLACE_BASE_URL'] as string,
        partnerId,
        partnerKey,
        guard: appGuard(config[`${prefix}_APP_QPS`] as number, 1, shared),
        renewAheadMs: config['MARKETPLACE_RENEW_AHEAD_MS'] as number,
        refreshTokenLifetimeMs: config['MARKETPLACE_REFRESH_TOKEN_LIFETIME_MS'] as number,
        now: shared.now,
      });
    },
  };
}

export const MARKETPLACE_PLUGIN = plugin('marketplace', 'MARKETPLACE');
export const MARKETPLACE_ADS_PLUGIN = plugin('marketplace-ads', 'MARKETPLACE_ADS');
export const MARKETPLACE_AFFILIATE_PLUGIN = plugin('marketplace-affiliate', 'MARKETPLACE_AFFILIATE');
