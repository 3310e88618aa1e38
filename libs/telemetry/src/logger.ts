import { trace } from '@opentelemetry/api';
import pino, { type Logger } from 'pino';

export type { Logger };

/** Header and field names whose values must never reach a log line. */
const REDACTED_PATHS = [
  'req.headers["x-api-key"]',
  'req.headers.authorization',
  'req.headers["access-token"]',
  'req.headers.cookie',
  'headers["x-api-key"]',
  'headers.authorization',
  'headers["access-token"]',
  'headers.cookie',
  '*.access_token',
  '*.refresh_token',
  '*.secret',
  '*.api_key',
  '*.password',
  'access_token',
  'refresh_token',
  'secret',
  'api_key',
  'password',
];

/**
 * Structured JSON logs on stdout, one line per event, with the active trace and span ids so a log line
 * leads to its trace. Secrets are redacted by path; callers still never pass raw keys or tokens.
 */
export function createLogger(service: string, level: string = 'info', destination?: pino.DestinationStream): Logger {
  const options: pino.LoggerOptions = {
    level,
    base: { service },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    formatters: { level: (label) => ({ level: label }) },
    mixin() {
      const span = trace.getActiveSpan();
      if (!span) return {};
      const context = span.spanContext();
      return { trace_id: context.traceId, span_id: context.spanId };
    },
  };
  // Stdout unless a test reads the lines itself.
  return destination === undefined ? pino(options) : pino(options, destination);
}

/**
 * The line every service prints once it accepts traffic. The local stack and the test harness wait for it
 * and read the bound address from it, so services can listen on port 0.
 */
export function logListening(logger: Logger, name: string, url: string): void {
  // Printed whatever LOG_LEVEL says: launchers depend on it.
  const contract = logger.isLevelEnabled('info') ? logger : logger.child({}, { level: 'info' });
  contract.info({ event: 'listening', listener: name, url }, `${name} listening on ${url}`);
}
