import type { ProviderCaller } from './provider-caller';
import { StreamProviderCaller } from './provider-proxy.stream-caller';
import { UnaryProviderCaller } from './provider-proxy.unary-caller';

export type ProviderProxyTransport = 'stream' | 'unary';

/**
 * How edge-auth and mcp-server reach provider-proxy: multiplexed over `streams` long-lived Exchange streams (the
 * default; docs/benchmarks.md and `npm run bench` show it faster) or one unary Fetch per request.
 */
export function createProviderCaller(options: {
  transport: ProviderProxyTransport;
  address: string;
  streams: number;
}): ProviderCaller {
  return options.transport === 'stream'
    ? new StreamProviderCaller(options.address, { streams: options.streams })
    : new UnaryProviderCaller(options.address);
}
