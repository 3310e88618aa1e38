import { errorStatus, type GatewayErrorCode } from './codes';

/** A gateway error that crosses a boundary as an exception (expected failures are values elsewhere). */
export class GatewayError extends Error {
  readonly status: number;
  constructor(
    readonly code: GatewayErrorCode,
    detail?: string,
    options?: { cause?: unknown },
  ) {
    super(detail ?? code, options);
    this.name = 'GatewayError';
    this.status = errorStatus(code);
  }
}
