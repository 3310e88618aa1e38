import { Metadata, status as GrpcStatus, type ServiceError } from '@grpc/grpc-js';
import type { ProviderProxyClient } from './generated/gateway/provider/v1/ProviderProxy';
import { deliverWhole, type ProviderCall, type ProviderCaller } from './provider-caller';
import { grpcFailure } from './grpc-failure';
import { createRawProviderProxyClient } from './provider-proxy.contract';

/** One unary Fetch per request: simple, and the baseline the stream caller is benchmarked against. */
export class UnaryProviderCaller implements ProviderCaller {
  private readonly client: ProviderProxyClient;

  constructor(address: string) {
    this.client = createRawProviderProxyClient(address);
  }

  call(request: Parameters<ProviderCaller['call']>[0], sink: Parameters<ProviderCaller['call']>[1]): ProviderCall {
    const deadline = Date.now() + (request.timeout_ms || 30_000) + 1_000;
    const call = this.client.fetch(request, new Metadata(), { deadline }, (error: ServiceError | null, response) => {
      if (error || !response) {
        sink.onEnd(grpcFailure(error?.code ?? GrpcStatus.UNKNOWN));
        return;
      }
      if (response.failure && response.failure.code) {
        sink.onEnd(response.failure);
        return;
      }
      deliverWhole(
        sink,
        { status: response.status, contentType: response.content_type, headers: response.headers },
        response.body,
      );
    });
    return { cancel: () => call.cancel(), credit: () => undefined };
  }

  close(): void {
    this.client.close();
  }
}
