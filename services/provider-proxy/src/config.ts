import { z } from 'zod';
import { commonEnv, durationMsFromEnv, portFromEnv } from '@gateway/config';
import { PROVIDER_ENV } from './adapters/providers';

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
    /** Each provider's own variables (app credentials, platform origins, QPS): see its adapters/<provider> plugin. */
    ...PROVIDER_ENV,
    /** NATS for the token-renewal leases shared by every replica; unset: one replica only (in-process lease). */
    NATS_URL: z.string().optional(),
    /** KV bucket of the token-renewal leases. */
    RENEWAL_LEASE_BUCKET: z
      .string()
      .regex(/^[A-Za-z0-9_-]+$/)
      .default('gateway_token_renewals'),
    /** Longest a renewal may hold a connection's lease (a replica that dies mid-renewal holds it this long). */
    RENEWAL_LEASE_TTL_MS: durationMsFromEnv(20_000),
    /**
     * Refresh tokens expire (marketplace: 30 days) and are used only when a request needs a new access token: every
     * REFRESH_SWEEP_INTERVAL_MS one replica renews the connections whose refresh token has less than
     * REFRESH_SWEEP_MARGIN_MS left, at most REFRESH_SWEEP_BATCH per scan.
     */
    REFRESH_SWEEP_INTERVAL_MS: durationMsFromEnv(3_600_000),
    /** See REFRESH_SWEEP_INTERVAL_MS; must exceed it, so that no refresh token expires between two scans. */
    REFRESH_SWEEP_MARGIN_MS: durationMsFromEnv(7 * 24 * 3_600_000),
    /** See REFRESH_SWEEP_INTERVAL_MS. */
    REFRESH_SWEEP_BATCH: z.coerce.number().int().positive().default(100),
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
    /**
     * Largest platform answer passed on (bytes). An answer announcing more is refused before anything is sent
     * (502 platform_answer_too_large); one without a length that grows past it is cut off. Bounds the memory an
     * answer can take in the MCP server, which holds whole answers.
     */
    UPSTREAM_MAX_ANSWER_BYTES: z.coerce.number().int().min(65_536).default(33_554_432),
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
    if (config.REFRESH_SWEEP_MARGIN_MS <= config.REFRESH_SWEEP_INTERVAL_MS) {
      ctx.addIssue({
        code: 'custom',
        path: ['REFRESH_SWEEP_MARGIN_MS'],
        message: 'must exceed REFRESH_SWEEP_INTERVAL_MS',
      });
    }
    if (config.GRPC_PORT !== 0 && config.GRPC_PORT === config.HTTP_PORT) {
      ctx.addIssue({ code: 'custom', path: ['HTTP_PORT'], message: 'must differ from GRPC_PORT' });
    }
  });

export type ProviderProxyConfig = z.infer<typeof ConfigSchema>;
