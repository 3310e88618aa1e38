import { commonEnv, ConfigError, durationMsFromEnv, listFromEnv, loadConfig, portFromEnv } from '@gateway/config';
import { DEFAULT_PARTITIONS, DEFAULT_SUBJECT_PREFIX } from '@gateway/decisions';
import { GrantConfigError, type GrantEnv, type PlatformGrant } from '@gateway/platform-grants';
import { z } from 'zod';
import { grantPlugins } from './connections/grant-plugins';
import type { KeyPairFlowSetup } from './connections/key-pair-flow';
import { KEY_PAIR_FLOWS } from './connections/key-pair-flows';

const httpUrl = z.url({ protocol: /^https?$/ });

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

/**
 * The portal's own variables (ConfigSchema) and the providers it connects: each grant plug-in and key-pair flow
 * reads and checks its own variables (connections/grant-plugins.ts, connections/key-pair-flows.ts), so no provider's
 * variable is listed here.
 */
export interface PortalConfig extends Config {
  grants: PlatformGrant[];
  keyPairFlows: KeyPairFlowSetup[];
}

/** Reads everything at start; a bad variable, the portal's or a provider's, fails it with one message naming all. */
export function loadPortalConfig(env: GrantEnv = process.env): PortalConfig {
  const problems: string[] = [];
  const collect = <T>(read: () => T): T | undefined => {
    try {
      return read();
    } catch (error) {
      if (error instanceof ConfigError || error instanceof GrantConfigError) problems.push(...error.problems);
      else throw error;
      return undefined;
    }
  };
  const config = collect(() => loadConfig('portal-api', ConfigSchema, env));
  const grants = collect(() => grantPlugins(env));
  const keyPairFlows = KEY_PAIR_FLOWS.map((plugin) => collect(() => plugin.fromEnv(env)));
  if (config === undefined || grants === undefined || problems.length > 0) {
    throw new ConfigError('portal-api', [...new Set(problems)]);
  }
  return {
    ...config,
    grants,
    keyPairFlows: keyPairFlows.filter((flow): flow is KeyPairFlowSetup => flow !== undefined),
  };
}
