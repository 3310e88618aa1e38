import { status as GrpcStatus } from '@grpc/grpc-js';
import type { Failure__Output } from './generated/gateway/provider/v1/Failure';

/** Maps a transport failure between a caller and provider-proxy to a gateway failure. */
export function grpcFailure(code: number): Failure__Output {
  if (code === GrpcStatus.DEADLINE_EXCEEDED) {
    return { code: 'platform_timeout', detail: 'the platform did not answer in time' };
  }
  return { code: 'service_unavailable', detail: 'the provider proxy could not be reached' };
}
