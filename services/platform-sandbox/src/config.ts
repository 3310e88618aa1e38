import { z } from 'zod';
import { commonEnv, durationMsFromEnv, portFromEnv } from '@gateway/config';
import { PLATFORM_MODULES } from './platform-modules.registry';

/** Variables of the sandbox itself and those more than one module reads. */
const SHARED_ENV = {
  ...commonEnv,
  /** Port of the simulated platform host; 0 picks a free one and the listening line reports it. */
  PORT: portFromEnv(4600),
  /** Added delay before each JSON answer of the platform APIs, to imitate the real platforms' latency in benchmarks. */
  SANDBOX_LATENCY_MS: z.coerce.number().int().min(0).default(0),
  /** How many requests the test/dev request log keeps (oldest dropped first). */
  SANDBOX_REQUEST_LOG_LIMIT: z.coerce.number().int().positive().default(5000),
  /** Lifetime of an auth_code of the authorization page; the platform uses one hour. */
  SANDBOX_AUTH_CODE_TTL_MS: durationMsFromEnv(3_600_000),
};
export type SharedConfig = z.infer<z.ZodObject<typeof SHARED_ENV>>;

type UnionToIntersection<U> = (U extends unknown ? (value: U) => void : never) extends (value: infer I) => void
  ? I
  : never;
/** Every module's own section (each module's <name>.config.ts), one variable per comment there. */
type ModulesEnv = UnionToIntersection<(typeof PLATFORM_MODULES)[number]['env']>;

function modulesEnv(): ModulesEnv {
  const merged: Record<string, unknown> = {};
  for (const platform of PLATFORM_MODULES) {
    for (const [name, schema] of Object.entries(platform.env)) {
      // A module may not redefine a shared variable or another module's: that would change its validation.
      if (name in merged || name in SHARED_ENV) throw new Error(`${platform.name} redefines ${name}`);
      merged[name] = schema;
    }
  }
  return merged as ModulesEnv;
}

export const ConfigSchema = z.object({ ...SHARED_ENV, ...modulesEnv() });

export type SandboxConfig = z.infer<typeof ConfigSchema>;
