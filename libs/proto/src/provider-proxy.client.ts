import { Metadata, type ServiceError } from '@grpc/grpc-js';
import type { FetchRequest } from './generated/gateway/provider/v1/FetchRequest';
import type { FetchResponse__Output } from './generated/gateway/provider/v1/FetchResponse';
import type { ProviderProxyClient } from './generated/gateway/provider/v1/ProviderProxy';
import { createRawProviderProxyClient } from './provider-proxy.contract';

/** Typed promise facade over the unary Fetch call. */
export interface ProviderProxyUnaryClient {
  fetch(request: FetchRequest, options?: { deadlineMs?: number; metadata?: Metadata }): Promise<FetchResponse__Output>;
  readonly raw: ProviderProxyClient;
  close(): void;
}

export function createProviderProxyClient(address: string): ProviderProxyUnaryClient {
  const raw = createRawProviderProxyClient(address);
  return {
    raw,
    fetch(request, options = {}) {
      const deadline = Date.now() + (options.deadlineMs ?? (request.timeout_ms ?? 30_000) + 1_000);
      return new Promise((resolve, reject) => {
        raw.fetch(request, options.metadata ?? new Metadata(), { deadline }, (error: ServiceError | null, response) => {
          if (error || !response) reject(error ?? new Error('empty response'));
          else resolve(response);
        });
      });
    },
    close() {
      raw.close();
    },
  };
}
