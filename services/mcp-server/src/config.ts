import { commonEnv, durationMsFromEnv, listFromEnv, portFromEnv, booleanFromEnv } from '@gateway/config';
import { DEFAULT_PARTITIONS, DEFAULT_SUBJECT_PREFIX } from '@gateway/decisions';
import { z } from 'zod';

const httpUrl = z.url({ protocol: /^https?$/ });

export const ConfigSchema = z
  .object({
    ...commonEnv,
    /** The MCP listener ({mcp_url}); 0 picks a free port and the listening line reports it. */
    PORT: portFromEnv(8081),
    /** Path of the MCP endpoint on this listener. */
    MCP_PATH: z
      .string()
      .regex(/^\/[A-Za-z0-9._~\-/]*$/, 'must be an absolute path')
      .default('/mcp'),
    /**
     * The public MCP URL ({mcp_url}): the OAuth resource and token audience, and the base of the metadata URL in
     * WWW-Authenticate. Required in production; elsewhere it defaults to http://<HOST>:<bound port><MCP_PATH>.
     */
    PUBLIC_URL: httpUrl.optional(),
    /** Issuer URL of the OAuth authorization server named in the protected-resource metadata (spec 5.3). */
    AUTHORIZATION_SERVER_URL: httpUrl.optional(),
    /**
     * Where mcp-server itself reaches that authorization server to fetch its metadata, which it serves again at
     * its own origin (/.well-known/oauth-authorization-server, /.well-known/openid-configuration) for clients that
     * look there. Default: AUTHORIZATION_SERVER_URL. The chart sets the authorization server's Service, so that the
     * fetch stays inside the cluster.
     */
    AUTHORIZATION_SERVER_INTERNAL_URL: httpUrl.optional(),
    /**
     * The database oauth-server writes its tokens to. With it, OAuth access tokens (spec 5.3) are accepted: looked
     * up by their SHA-256. Without it only API keys are. Required in production when AUTHORIZATION_SERVER_URL is set.
     */
    MONGODB_URI: z.string().min(1).optional(),
    /**
     * How long an accepted access token is remembered before it is looked up again: the delay before a token
     * revoked at oauth-server's /revoke stops working (spec 3 allows MCP a minute). Revoking the key in the portal
     * is immediate regardless. 0 looks up every request.
     */
    OAUTH_TOKEN_CACHE_MS: z.coerce.number().int().min(0).max(60_000).default(30_000),
    /** Scopes announced in WWW-Authenticate and the protected-resource metadata. */
    OAUTH_SCOPES: listFromEnv(['data:read']),
    /**
     * Host names (no port) accepted in the Host header of /mcp and /.well-known (DNS-rebinding protection).
     * Default: the host of PUBLIC_URL, plus localhost, 127.0.0.1 and [::1] when that host or HOST is loopback.
     */
    ALLOWED_HOSTS: listFromEnv([]),
    /**
     * Origins (scheme://host[:port]) accepted in an Origin header. Default: any origin whose host is an allowed
     * host. Requests without Origin (non-browser clients) are not affected.
     */
    ALLOWED_ORIGINS: listFromEnv([]),
    NATS_URL: z.string().default('nats://127.0.0.1:4222'),
    /** Must equal the quota-actors' PARTITIONS and SUBJECT_PREFIX. */
    PARTITIONS: z.coerce.number().int().min(1).max(4096).default(DEFAULT_PARTITIONS),
    SUBJECT_PREFIX: z.string().default(DEFAULT_SUBJECT_PREFIX),
    /** How long a decision may wait for a partition owner (covers an actor failover) before 503. */
    DECISION_BUDGET_MS: durationMsFromEnv(4_000),
    /**
     * Refuse again without asking what the quota-actor said it would refuse for a while (an unknown key, a key over
     * its rate until its next unit, a used-up block quota for up to a minute); a key change ends it at once.
     */
    HOLD_REFUSALS: booleanFromEnv(true),
    /** host:port of provider-proxy's gRPC listener. */
    PROVIDER_PROXY_ADDRESS: z.string().min(1),
    /** stream: requests multiplexed over long-lived Exchange streams (faster); unary: one Fetch per request. */
    PROVIDER_PROXY_TRANSPORT: z.enum(['stream', 'unary']).default('stream'),
    /** Parallel Exchange streams per process. */
    PROVIDER_PROXY_STREAMS: z.coerce.number().int().min(1).max(64).default(2),
    /** How long a platform may take to answer before call_endpoint reports platform_timeout. */
    UPSTREAM_TIMEOUT_MS: durationMsFromEnv(30_000),
    /** Reverse proxies (CIDRs) whose X-Forwarded-For is believed for the key's IP allowlist (spec 5.1 rule 5). */
    TRUSTED_PROXY_CIDRS: listFromEnv([]),
    /**
     * Largest platform answer, in characters of JSON, that call_endpoint returns whole; larger ones are cut at a
     * record boundary and flagged truncated (spec 4.3 rule 4). Sized for assistants' tool-result limits.
     */
    MAX_RESULT_CHARS: z.coerce.number().int().min(2_000).default(100_000),
    /**
     * Most bytes of one platform answer call_endpoint reads: a longer answer is cut there while it streams (the rest
     * is never sent to this process), closed into valid JSON after its last whole record, and returned truncated
     * like any large answer. Bounds what one call holds in memory; the platform may answer far more (32 MiB).
     */
    MAX_ANSWER_BYTES: z.coerce.number().int().min(65_536).max(33_554_432).default(2_097_152),
    /** Largest JSON-RPC request body accepted. */
    MAX_REQUEST_BYTES: z.coerce.number().int().min(1_024).default(1_048_576),
    /**
     * OpenAI-compatible chat-completions API for find_endpoint's AI suggestions ({LLM_BASE_URL}/chat/completions).
     * Unset: find_endpoint always answers by keyword matching.
     */
    LLM_BASE_URL: httpUrl.optional().transform((value) => value?.replace(/\/+$/, '')),
    /** Bearer key of that API. Never logged. */
    LLM_API_KEY: z.string().optional(),
    /** Model name sent with every suggestion request; required with LLM_BASE_URL. */
    LLM_MODEL: z.string().optional(),
    /** How long a suggestion may take before find_endpoint falls back to keyword matching. */
    LLM_TIMEOUT_MS: durationMsFromEnv(8_000),
    /**
     * TEST ONLY (NODE_ENV=test, refused otherwise): an API key used for requests that carry no token, so that
     * clients which cannot send one (the MCP conformance suite) can be pointed at a test instance.
     */
    MCP_ANONYMOUS_KEY: z.string().optional(),
  })
  .superRefine((config, ctx) => {
    if (config.NODE_ENV === 'production' && !config.PUBLIC_URL) {
      ctx.addIssue({ code: 'custom', path: ['PUBLIC_URL'], message: 'is required in production' });
    }
    if (config.NODE_ENV === 'production' && config.AUTHORIZATION_SERVER_URL && !config.MONGODB_URI) {
      ctx.addIssue({
        code: 'custom',
        path: ['MONGODB_URI'],
        message: 'is required with AUTHORIZATION_SERVER_URL in production (OAuth access tokens are looked up there)',
      });
    }
    if (config.MCP_ANONYMOUS_KEY !== undefined && config.NODE_ENV !== 'test') {
      ctx.addIssue({ code: 'custom', path: ['MCP_ANONYMOUS_KEY'], message: 'is only accepted when NODE_ENV=test' });
    }
    if (config.LLM_BASE_URL && !config.LLM_MODEL) {
      ctx.addIssue({ code: 'custom', path: ['LLM_MODEL'], message: 'is required with LLM_BASE_URL' });
    }
  });

export type Config = z.infer<typeof ConfigSchema>;
