/**
 * Thrown when a piece of infrastructure (NATS, a MongoDB-wire server) can neither be found nor started.
 * The message says what is missing and how to provide it; `cause` keeps the underlying failure.
 */
export class InfraUnavailableError extends Error {
  constructor(
    readonly component: 'nats' | 'mongodb',
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'InfraUnavailableError';
  }
}

/** Thrown when a spawned service exits or stays silent before printing its listening line(s). */
export class ServiceStartError extends Error {
  constructor(
    readonly service: string,
    message: string,
    /** The child's last output lines, oldest first, for diagnostics. */
    readonly output: readonly string[],
    options?: { cause?: unknown },
  ) {
    super(output.length ? `${message}\n--- last output of ${service} ---\n${output.join('\n')}` : message, options);
    this.name = 'ServiceStartError';
  }
}
