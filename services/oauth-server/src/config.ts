import { commonEnv, durationMsFromEnv, listFromEnv, portFromEnv } from '@gateway/config';
import { DEFAULT_PARTITIONS, DEFAULT_SUBJECT_PREFIX } from '@gateway/decisions';
import { z } from 'zod';
import { redirectConfigProblem } from './clients/redirect-uri.matcher';

const httpUrl = z.url({ protocol: /^https?$/ });
const clientId = z.string().regex(/^[A-Za-z0-9._~-]{1,100}$/, 'must be 1-100 unreserved characters');

export const ConfigSchema = z
  .object({
    ...commonEnv,
    /** The listener of the authorization server (metadata, /authorize, /token, /revoke). */
    PORT: portFromEnv(8083),
    /**
     * The issuer (RFC 8414) and public base URL, e.g. https://auth.example.com, without a trailing slash. It must
     * be byte-identical to mcp-server's AUTHORIZATION_SERVER_URL. Required in production; elsewhere it defaults
     * to http://<HOST>:<bound port>.
     */
    ISSUER: httpUrl
      .refine((value) => !value.endsWith('/'), 'must not end with "/"')
      .refine((value) => !/[?#]/.test(value), 'must not carry a query or fragment')
      .optional(),
    /**
     * The MCP URL ({mcp_url}, mcp-server's PUBLIC_URL): the only resource (RFC 8707) tokens are issued for, and
     * their audience. Required in production.
     */
    MCP_RESOURCE_URL: httpUrl.optional(),
    MONGODB_URI: z.string().min(1),
    NATS_URL: z.string().default('nats://127.0.0.1:4222'),
    /** Must equal the quota-actors' PARTITIONS and SUBJECT_PREFIX: a new OAuth key is announced to its actor. */
    PARTITIONS: z.coerce.number().int().min(1).max(4096).default(DEFAULT_PARTITIONS),
    SUBJECT_PREFIX: z.string().default(DEFAULT_SUBJECT_PREFIX),
    /**
     * HMAC keys (comma-separated, 16+ characters each) that sign the authorization request carried through the
     * sign-in and consent forms; the first signs, all verify (rotation). Required in production; elsewhere a
     * random key per process. Never logged.
     */
    OAUTH_SIGNING_KEYS: listFromEnv([]).pipe(z.array(z.string().min(16, 'each key needs 16+ characters'))),
    /** Scopes offered; equal to mcp-server's OAUTH_SCOPES. */
    OAUTH_SCOPES: listFromEnv(['data:read']),
    /** The first assistant product (spec 5.3): a fixed client id, shown name, exact callback URIs. */
    CHAT_ASSISTANT_CLIENT_ID: clientId.default('chat-assistant'),
    CHAT_ASSISTANT_NAME: z.string().min(1).max(80).default('Chat Assistant'),
    CHAT_ASSISTANT_REDIRECT_URIS: listFromEnv(['https://chat-assistant.example/api/mcp/auth_callback']),
    /**
     * The second assistant product: token endpoint authentication `none`, callbacks accepted as one path segment
     * under this prefix (spec 5.3 rules 3 and 4).
     */
    SECOND_ASSISTANT_CLIENT_ID: clientId.default('second-assistant'),
    SECOND_ASSISTANT_NAME: z.string().min(1).max(80).default('Second Assistant'),
    SECOND_ASSISTANT_REDIRECT_PREFIX: z.string().default('https://second-assistant.example/connector/oauth/'),
    /** Life of an authorization code: single use, short (OAuth 2.1 section 4.1.2 recommends at most 10 minutes). */
    AUTH_CODE_TTL_MS: durationMsFromEnv(60_000),
    ACCESS_TOKEN_TTL_MS: durationMsFromEnv(60 * 60_000),
    REFRESH_TOKEN_TTL_MS: durationMsFromEnv(30 * 24 * 60 * 60_000),
    /** Life of the sign-in on this server (between sign-in and consent). */
    SESSION_TTL_MS: durationMsFromEnv(30 * 60_000),
    /** How long the signed authorization request of the sign-in and consent forms stays valid. */
    FORM_TTL_MS: durationMsFromEnv(15 * 60_000),
    /** Failed sign-ins allowed per email and client address within SIGN_IN_WINDOW_MS. */
    SIGN_IN_MAX_FAILURES: z.coerce.number().int().min(1).default(5),
    SIGN_IN_WINDOW_MS: durationMsFromEnv(15 * 60_000),
    /** Reverse proxies whose X-Forwarded-For is believed for the sign-in throttle's client address. */
    TRUSTED_PROXY_CIDRS: listFromEnv([]),
  })
  .superRefine((config, ctx) => {
    const production = config.NODE_ENV === 'production';
    if (production) {
      if (config.ISSUER === undefined || !config.ISSUER.startsWith('https:')) {
        ctx.addIssue({ code: 'custom', path: ['ISSUER'], message: 'is required and must be https in production' });
      }
      if (config.MCP_RESOURCE_URL === undefined) {
        ctx.addIssue({ code: 'custom', path: ['MCP_RESOURCE_URL'], message: 'is required in production' });
      }
      if (config.OAUTH_SIGNING_KEYS.length === 0) {
        ctx.addIssue({ code: 'custom', path: ['OAUTH_SIGNING_KEYS'], message: 'is required in production' });
      }
    }
    if (config.CHAT_ASSISTANT_CLIENT_ID === config.SECOND_ASSISTANT_CLIENT_ID) {
      ctx.addIssue({ code: 'custom', path: ['SECOND_ASSISTANT_CLIENT_ID'], message: 'must differ from the first' });
    }
    if (config.CHAT_ASSISTANT_REDIRECT_URIS.length === 0) {
      ctx.addIssue({ code: 'custom', path: ['CHAT_ASSISTANT_REDIRECT_URIS'], message: 'needs at least one URI' });
    }
    for (const [i, uri] of config.CHAT_ASSISTANT_REDIRECT_URIS.entries()) {
      const problem = redirectConfigProblem(uri, 'exact', !production);
      if (problem) ctx.addIssue({ code: 'custom', path: ['CHAT_ASSISTANT_REDIRECT_URIS', i], message: problem });
    }
    const prefixProblem = redirectConfigProblem(config.SECOND_ASSISTANT_REDIRECT_PREFIX, 'prefix', !production);
    if (prefixProblem) {
      ctx.addIssue({ code: 'custom', path: ['SECOND_ASSISTANT_REDIRECT_PREFIX'], message: prefixProblem });
    }
  });

export type Config = z.infer<typeof ConfigSchema>;
