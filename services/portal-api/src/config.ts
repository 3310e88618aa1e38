import { commonEnv, durationMsFromEnv, listFromEnv, portFromEnv } from '@gateway/config';
import { DEFAULT_PARTITIONS, DEFAULT_SUBJECT_PREFIX } from '@gateway/decisions';
import { z } from 'zod';

const httpUrl = z.url({ protocol: /^https?$/ });
/** A marketplace partner id: digits (the code exchange sends it as a JSON number). */
const partnerId = z
  .string()
  .regex(/^\d{1,15}$/, 'must be digits')
  .optional();

export const ConfigSchema = z
  .object({
    ...commonEnv,
    /** The portal's listener (JSON API under /api and the web app). */
    PORT: portFromEnv(8082),
    /**
     * The portal's public origin, e.g. https://portal.example.com. Platform callbacks come back to it and state
     * changes must come from it (Origin check). Default: the bound address (local runs and tests).
     */
    PUBLIC_URL: httpUrl.optional(),
    MONGODB_URI: z.string().min(1),
    NATS_URL: z.string().default('nats://127.0.0.1:4222'),
    /** Must equal the quota-actors' PARTITIONS and SUBJECT_PREFIX: key changes are told to the key's actor. */
    PARTITIONS: z.coerce.number().int().min(1).max(4096).default(DEFAULT_PARTITIONS),
    SUBJECT_PREFIX: z.string().default(DEFAULT_SUBJECT_PREFIX),
    /** AES-256-GCM keyring `kid:base64,...` sealing the platform tokens of new connections. Never logged. */
    CREDENTIALS_ENCRYPTION_KEYS: z.string().min(1),
    CREDENTIALS_ACTIVE_KEY_ID: z.string().min(1),
    /** The video-ads platform (the sandbox locally): authorization page and auth_code exchange. */
    VIDEO_ADS_BASE_URL: httpUrl,
    VIDEO_ADS_APP_ID: z.string().min(1),
    /** Secret of the platform app. Never logged. */
    VIDEO_ADS_APP_SECRET: z.string().min(1),
    /** API base of video-shop (the signed shop list of a grant); the sandbox's /video-shop locally. */
    VIDEO_SHOP_API_URL: httpUrl.default('https://open-api.tiktokglobalshop.com'),
    /** Auth base of video-shop (authorization page and code exchange); the sandbox's /video-shop-auth locally. */
    VIDEO_SHOP_AUTH_URL: httpUrl.default('https://auth.tiktok-shops.com'),
    /** The gateway's app at video-shop; unset: the portal offers no video-shop grant. */
    VIDEO_SHOP_APP_KEY: z.string().min(1).optional(),
    /** Secret of that app: the code exchange and the signature of the shop list. Never logged. */
    VIDEO_SHOP_APP_SECRET: z.string().min(1).optional(),
    /** Marketplace host (authorization page, code exchange) of all three apps; the sandbox's /marketplace locally. */
    MARKETPLACE_BASE_URL: httpUrl.default('https://partner.shopeemobile.com'),
    /** The gateway's seller app at marketplace; unset (or its key unset): the portal offers no marketplace grant. */
    MARKETPLACE_PARTNER_ID: partnerId,
    /** Partner key of the seller app: signs the authorization page and the code exchange. Never logged. */
    MARKETPLACE_PARTNER_KEY: z.string().min(1).optional(),
    /** The gateway's ads app; unset (or its key unset): no marketplace-ads grant. */
    MARKETPLACE_ADS_PARTNER_ID: partnerId,
    /** Partner key of the ads app. Never logged. */
    MARKETPLACE_ADS_PARTNER_KEY: z.string().min(1).optional(),
    /** The gateway's affiliate app; unset (or its key unset): no marketplace-affiliate grant. */
    MARKETPLACE_AFFILIATE_PARTNER_ID: partnerId,
    /** Partner key of the affiliate app. Never logged. */
    MARKETPLACE_AFFILIATE_PARTNER_KEY: z.string().min(1).optional(),
    /** API host of search-ads (the organization list of a new connection); the sandbox's /search-ads locally. */
    SEARCH_ADS_API_URL: httpUrl.default('https://api.searchads.apple.com'),
    /** Token host of search-ads (client-credentials tokens); the sandbox's /search-ads-auth locally. */
    SEARCH_ADS_AUTH_URL: httpUrl.default('https://appleid.apple.com'),
    /**
     * The platform's page where the customer registers the portal's public key as an API user (shown as a link in
     * the connect dialog); the sandbox's /search-ads-auth/api-users locally.
     */
    SEARCH_ADS_API_USERS_URL: httpUrl.default('https://app-ads.apple.com/cm/app/settings/apicertificates'),
    /** How long a key pair made for a search-ads connection waits for its API user before it is dropped. */
    SEARCH_ADS_KEY_TTL_MS: durationMsFromEnv(60 * 60 * 1000),
    /** {base_url} and {mcp_url} as customers should use them; shown in the web app. */
    REST_BASE_URL: httpUrl.default('http://127.0.0.1:8080'),
    MCP_URL: httpUrl.default('http://127.0.0.1:8081/mcp'),
    /** Life of a portal session (absolute, from sign-in). */
    SESSION_TTL_MS: durationMsFromEnv(12 * 60 * 60 * 1000),
    /** How long a started platform grant may take before its callback is refused. */
    GRANT_TTL_MS: durationMsFromEnv(15 * 60 * 1000),
    /** Failed sign-ins allowed per email and client address within SIGN_IN_WINDOW_MS, then 429. */
    SIGN_IN_MAX_FAILURES: z.coerce.number().int().min(1).default(5),
    SIGN_IN_WINDOW_MS: durationMsFromEnv(15 * 60 * 1000),
    /** Reverse proxies whose X-Forwarded-For is believed for the sign-in throttle's client address. */
    TRUSTED_PROXY_CIDRS: listFromEnv([]),
  })
  .superRefine((config, ctx) => {
    // Cookies lose Secure only for local http runs; production always sets it.
    if (config.NODE_ENV === 'production' && config.PUBLIC_URL?.startsWith('http:')) {
      ctx.addIssue({ code: 'custom', path: ['PUBLIC_URL'], message: 'must be https in production' });
    }
    if (config.NODE_ENV === 'production' && config.PUBLIC_URL === undefined) {
      ctx.addIssue({ code: 'custom', path: ['PUBLIC_URL'], message: 'is required in production' });
    }
  });

export type Config = z.infer<typeof ConfigSchema>;
