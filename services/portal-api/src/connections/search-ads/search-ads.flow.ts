import { durationMsFromEnv } from '@gateway/config';
import { GrantConfigError, searchAdsGrantPlugin, type SearchAdsGrant } from '@gateway/platform-grants';
import { z } from 'zod';
import type { KeyPairFlowPlugin } from '../key-pair-flow';
import { SearchAdsKeyStore } from './search-ads-key.store';
import { SEARCH_ADS, searchAdsRoutes, SEARCH_ADS_KEYS_PATH } from './search-ads.routes';

/** The portal's own variables of the search-ads flow (its grant plug-in reads SEARCH_ADS_API_URL and _AUTH_URL). */
const SearchAdsPortalEnvSchema = z.object({
  /**
   * The platform's page where the customer registers the portal's public key as an API user (shown as a link in
   * the connect dialog); the sandbox's /search-ads-auth/api-users locally.
   */
  SEARCH_ADS_API_USERS_URL: z
    .url({ protocol: /^https?$/ })
    .default('https://app-ads.apple.com/cm/app/settings/apicertificates'),
  /** How long a key pair made for a search-ads connection waits for its API user before it is dropped. */
  SEARCH_ADS_KEY_TTL_MS: durationMsFromEnv(60 * 60 * 1000),
});

/** What the search-ads connect flow needs: the platform calls, the sealed pending keys, the API-user page. */
export interface SearchAdsPortal {
  grant: SearchAdsGrant;
  keys: SearchAdsKeyStore;
  /** Life of a pending key pair. */
  keyTtlMs: number;
  /** The platform's page where the customer registers the public key as an API user. */
  apiUsersUrl: string;
}

/** search-ads connects with a key pair (docs/portal.md, "search-ads"); always offered, as its grant plug-in is. */
export const searchAdsKeyPairFlow: KeyPairFlowPlugin = {
  provider: SEARCH_ADS,
  fromEnv(env) {
    const problems: string[] = [];
    let grant: SearchAdsGrant | undefined;
    try {
      grant = searchAdsGrantPlugin.fromEnv(env);
    } catch (error) {
      if (!(error instanceof GrantConfigError)) throw error;
      problems.push(...error.problems);
    }
    const own = SearchAdsPortalEnvSchema.safeParse(env);
    if (!own.success) {
      problems.push(...own.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`));
    }
    if (problems.length > 0) throw new GrantConfigError(problems);
    if (grant === undefined || !own.success) return undefined;
    const settings = own.data;
    return {
      provider: SEARCH_ADS,
      async open({ connection, cipher }) {
        const keys = new SearchAdsKeyStore(connection, cipher);
        const { ttl } = await keys.ensureIndexes();
        const flow: SearchAdsPortal = {
          grant,
          keys,
          keyTtlMs: settings.SEARCH_ADS_KEY_TTL_MS,
          apiUsersUrl: settings.SEARCH_ADS_API_USERS_URL,
        };
        return {
          provider: SEARCH_ADS,
          startPath: SEARCH_ADS_KEYS_PATH,
          ttlIndex: ttl,
          purgeExpired: () => keys.purgeExpired(),
          routes: (deps) => searchAdsRoutes(deps, flow),
        };
      },
    };
  },
};
