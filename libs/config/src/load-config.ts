import type { z } from 'zod';

/** Thrown when the environment does not satisfy a service's schema. Never carries the offending values. */
export class ConfigError extends Error {
  constructor(
    readonly service: string,
    readonly problems: string[],
  ) {
    super(`invalid configuration for ${service}:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
  }
}

/**
 * Parses the environment with a service's schema. Called from main.ts only, never at import time,
 * so tests can build servers from explicit config objects. Messages name the variable and the rule,
 * never the value (values may be secrets).
 */
export function loadConfig<S extends z.ZodType>(
  service: string,
  schema: S,
  env: NodeJS.ProcessEnv = process.env,
): z.infer<S> {
  const result = schema.safeParse(env);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`);
  throw new ConfigError(service, problems);
}
