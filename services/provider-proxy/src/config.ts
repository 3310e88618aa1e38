import { z } from 'zod';
import { commonEnv, durationMsFromEnv, portFromEnv } from '@gateway/config';

export const ConfigSchema = z
  .object({
    ...commonEnv,
    /** gRPC port (Fetch, Exchange, grpc.health.v1); 0 picks a free one and the listening line reports it. */
    GRPC_PORT: portFromEnv(50051),
    /** Port of the small HTTP listener for /healthz, /readyz and /metrics; 0 picks a free one. */
    HTTP_PORT: portFromEnv(9464),
    /** MongoDB (or FerretDB) holding the connections; the proxy only reads them. */
    MONGODB_URI: z.string().regex(/^mongodb(\+srv)?:\/\//, 'must be a mongodb:// or mongodb+srv:// URI'),
    /** Keyring that opens the sealed platform credentials: "<kid>:<base64 of 32 bytes>,...". Never logged. */
    CREDENTIALS_ENCRYPTION_KEYS: z.string().min(1),
    /** Key id of the keyring entry new ciphertexts use; must be in CREDENTIALS_ENCRYPTION_KEYS. */
    CREDENTIALS_ACTIVE_KEY_ID: z.string().min(1),
    /** Origin of the video-ads platform; the sandbox locally (reference/platforms.md). */
    VIDEO_ADS_BASE_URL: z
      .url({ protocol: /^https?$/ })
      .default('https://business-api.tiktok.com')
      .transform((value) => value.replace(/\/+$/, '')),
    /** The gateway's own app at video-ads; sent as app_id where the platform wants it (needsAppCredentials). */
    VIDEO_ADS_APP_ID: z.string().min(1),
    /** Secret of that app. Never logged, never in a span or a failure detail. */
    VIDEO_ADS_APP_SECRET: z.string().min(1),
    /** Requests per second the app may send to video-ads (platform tiers: 8, 12, 20); 0 = no guard. */
    VIDEO_ADS_APP_QPS: z.coerce.number().min(0).default(20),
    /** Requests the QPS guard lets through back to back after an idle period; 1 = evenly spaced. */
    VIDEO_ADS_APP_BURST: z.coerce.number().int().min(1).default(1),
    /** Requests that may wait for the QPS guard at once; more get platform_busy at once. */
    QPS_QUEUE_LIMIT: z.coerce.number().int().min(0).default(1000),
    /** Longest wait for the QPS guard (also bounded by the request's own deadline); longer gets platform_busy. */
    QPS_MAX_WAIT_MS: durationMsFromEnv(2_000),
    /** Deadline for a platform answer head when the caller sets no timeout_ms. */
    UPSTREAM_TIMEOUT_MS: durationMsFromEnv(30_000),
    /** Upper bound for a caller's timeout_ms. */
    UPSTREAM_MAX_TIMEOUT_MS: durationMsFromEnv(120_000),
    /** Longest silence between two body chunks of a platform answer before it counts as platform_timeout. */
    UPSTREAM_BODY_TIMEOUT_MS: durationMsFromEnv(30_000),
    /** Keep-alive connections per platform origin (bounded so a burst cannot open thousands of sockets). */
    UPSTREAM_CONNECTIONS: z.coerce.number().int().positive().default(32),
    /** TCP+TLS connect timeout towards a platform. */
    UPSTREAM_CONNECT_TIMEOUT_MS: durationMsFromEnv(10_000),
    /** How long an idle keep-alive socket to a platform is kept. */
    UPSTREAM_KEEP_ALIVE_MS: durationMsFromEnv(30_000),
    /** How long decrypted credentials stay in memory before they are read from MongoDB again. */
    CREDENTIAL_CACHE_TTL_MS: durationMsFromEnv(60_000),
    /** Most connections whose credentials are cached at once (least recently loaded dropped first). */
    CREDENTIAL_CACHE_MAX_ENTRIES: z.coerce.number().int().positive().default(10_000),
    /** On SIGTERM: how long in-flight calls may take to finish before the gRPC server is forced down. */
    SHUTDOWN_GRACE_MS: durationMsFromEnv(10_000),
  })
  .superRefine((config, ctx) => {
    if (config.UPSTREAM_TIMEOUT_MS > config.UPSTREAM_MAX_TIMEOUT_MS) {
      ctx.addIssue({
        code: 'custom',
        path: ['UPSTREAM_TIMEOUT_MS'],
        message: 'must not exceed UPSTREAM_MAX_TIMEOUT_MS',
      });
    }
    if (config.GRPC_PORT !== 0 && config.GRPC_PORT === config.HTTP_PORT) {
      ctx.addIssue({ code: 'custom', path: ['HTTP_PORT'], message: 'must differ from GRPC_PORT' });
    }
  });

export type ProviderProxyConfig = z.infer<typeof ConfigSchema>;
