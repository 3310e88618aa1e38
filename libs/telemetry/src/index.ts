export { createLogger, logListening } from './logger';
export type { Logger } from './logger';
