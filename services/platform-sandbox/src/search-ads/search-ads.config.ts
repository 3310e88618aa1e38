import { z } from 'zod';

/** search-ads' section of the sandbox environment (config.ts merges it into ConfigSchema). */
export const SEARCH_ADS_ENV = {
  /** Lifetime in seconds of a search-ads access token (the platform's is 3600, its expires_in); tests shorten it. */
  SANDBOX_SEARCH_ADS_ACCESS_TOKEN_TTL_S: z.coerce.number().int().positive().default(3600),
  /** Requests per API user and hour on the search-ads API host (429 beyond, with X-Rate-Limit); 0 turns it off. */
  SANDBOX_SEARCH_ADS_USER_HOUR_LIMIT: z.coerce.number().int().min(0).default(0),
};
