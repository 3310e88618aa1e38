import { z } from 'zod';

/** "true"/"1"/"yes" are true; anything else present is false; absent takes the default. */
export const booleanFromEnv = (fallback: boolean) =>
  z
    .string()
    .optional()
    .transform((value) =>
      value === undefined || value === '' ? fallback : ['true', '1', 'yes'].includes(value.toLowerCase()),
    );

/** A TCP port; 0 asks the OS for a free one (tests and the local stack use that). */
export const portFromEnv = (fallback: number) => z.coerce.number().int().min(0).max(65535).default(fallback);

export const durationMsFromEnv = (fallback: number) => z.coerce.number().int().positive().default(fallback);

/** Comma-separated list; blanks dropped. */
export const listFromEnv = (fallback: string[] = []) =>
  z
    .string()
    .optional()
    .transform((value) =>
      value === undefined
        ? fallback
        : value
            .split(',')
            .map((item) => item.trim())
            .filter(Boolean),
    );

/** Variables every service reads. */
export const commonEnv = {
  /** Where the service listens; loopback by default so nothing is exposed by accident. */
  HOST: z.string().default('127.0.0.1'),
  /** pino level: trace, debug, info, warn, error, fatal, silent. */
  LOG_LEVEL: z.enum(['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent']).default('info'),
  /** production | development | test. Test/dev turn on the sandbox's request log and seeding helpers. */
  NODE_ENV: z.enum(['production', 'development', 'test']).default('production'),
};

export type CommonEnv = { HOST: string; LOG_LEVEL: string; NODE_ENV: 'production' | 'development' | 'test' };
