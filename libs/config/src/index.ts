export { loadConfig, ConfigError } from './load-config';
export { commonEnv, booleanFromEnv, portFromEnv, durationMsFromEnv, listFromEnv } from './common-env';
export type { CommonEnv } from './common-env';
