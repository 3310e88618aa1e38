import { credentials, loadPackageDefinition, type ChannelOptions } from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';
import { join } from 'node:path';
import { encodeDirectly, loadContractRoot } from './direct-encoding';
import { useCompiledCodecs } from './reflected-codec';
import { LOADER_OPTIONS } from './loader-options';
import type { ProtoGrpcType } from './generated/provider_proxy';
import type { ProviderProxyClient, ProviderProxyDefinition } from './generated/gateway/provider/v1/ProviderProxy';

const PROTO_ROOT = join(__dirname, '..', 'proto');
const CONTRACT_FILE = 'gateway/provider/v1/provider_proxy.proto';
const SERVICE = 'gateway.provider.v1.ProviderProxy';

let cached: ProtoGrpcType | undefined;

function loadContract(): ProtoGrpcType {
  if (cached) return cached;
  const definition = loadSync(CONTRACT_FILE, Object.assign({}, LOADER_OPTIONS, { includeDirs: [PROTO_ROOT] }));
  const root = loadContractRoot(PROTO_ROOT, CONTRACT_FILE);
  encodeDirectly(definition, SERVICE, root);
  // Every forwarded request's frames, both ways, in place of what encodeDirectly set for Exchange: reflected-codec.ts.
  useCompiledCodecs(definition, SERVICE, 'Exchange', root);
  cached = loadPackageDefinition(definition) as unknown as ProtoGrpcType;
  return cached;
}

export function providerProxyService(): ProviderProxyDefinition {
  return loadContract().gateway.provider.v1.ProviderProxy.service;
}

/** Platform answers can be large (a 1000-row report page); the default 4 MiB receive limit is too small. */
export const MAX_MESSAGE_BYTES = 64 * 1024 * 1024;

export const PROVIDER_PROXY_CHANNEL_OPTIONS: ChannelOptions = {
  'grpc.max_receive_message_length': MAX_MESSAGE_BYTES,
  'grpc.max_send_message_length': MAX_MESSAGE_BYTES,
  'grpc.keepalive_time_ms': 30_000,
  'grpc.keepalive_timeout_ms': 10_000,
  'grpc.keepalive_permit_without_calls': 1,
  // grpc-js waits 1 s after a failed connect, then 1.6x longer each time, up to 120 s: a replica that restarted
  // (or a whole Deployment that rolled) would be found only that late. Replicas are on the same network.
  'grpc.initial_reconnect_backoff_ms': 100,
  'grpc.max_reconnect_backoff_ms': 2_000,
};

/** The raw generated client; most callers want `createProviderProxyClient` instead. */
export function createRawProviderProxyClient(address: string): ProviderProxyClient {
  const Client = loadContract().gateway.provider.v1.ProviderProxy;
  return new Client(address, credentials.createInsecure(), PROVIDER_PROXY_CHANNEL_OPTIONS);
}
