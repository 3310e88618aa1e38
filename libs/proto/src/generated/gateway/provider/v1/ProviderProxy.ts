// Original file: libs/proto/proto/gateway/provider/v1/provider_proxy.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { ClientFrames as _gateway_provider_v1_ClientFrames, ClientFrames__Output as _gateway_provider_v1_ClientFrames__Output } from '../../../gateway/provider/v1/ClientFrames';
import type { FetchRequest as _gateway_provider_v1_FetchRequest, FetchRequest__Output as _gateway_provider_v1_FetchRequest__Output } from '../../../gateway/provider/v1/FetchRequest';
import type { FetchResponse as _gateway_provider_v1_FetchResponse, FetchResponse__Output as _gateway_provider_v1_FetchResponse__Output } from '../../../gateway/provider/v1/FetchResponse';
import type { ServerFrames as _gateway_provider_v1_ServerFrames, ServerFrames__Output as _gateway_provider_v1_ServerFrames__Output } from '../../../gateway/provider/v1/ServerFrames';

export interface ProviderProxyClient extends grpc.Client {
  Exchange(metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientDuplexStream<_gateway_provider_v1_ClientFrames, _gateway_provider_v1_ServerFrames__Output>;
  Exchange(options?: grpc.CallOptions): grpc.ClientDuplexStream<_gateway_provider_v1_ClientFrames, _gateway_provider_v1_ServerFrames__Output>;
  exchange(metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientDuplexStream<_gateway_provider_v1_ClientFrames, _gateway_provider_v1_ServerFrames__Output>;
  exchange(options?: grpc.CallOptions): grpc.ClientDuplexStream<_gateway_provider_v1_ClientFrames, _gateway_provider_v1_ServerFrames__Output>;
  
  Fetch(argument: _gateway_provider_v1_FetchRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_gateway_provider_v1_FetchResponse__Output>): grpc.ClientUnaryCall;
  Fetch(argument: _gateway_provider_v1_FetchRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_gateway_provider_v1_FetchResponse__Output>): grpc.ClientUnaryCall;
  Fetch(argument: _gateway_provider_v1_FetchRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_gateway_provider_v1_FetchResponse__Output>): grpc.ClientUnaryCall;
  Fetch(argument: _gateway_provider_v1_FetchRequest, callback: grpc.requestCallback<_gateway_provider_v1_FetchResponse__Output>): grpc.ClientUnaryCall;
  fetch(argument: _gateway_provider_v1_FetchRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_gateway_provider_v1_FetchResponse__Output>): grpc.ClientUnaryCall;
  fetch(argument: _gateway_provider_v1_FetchRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_gateway_provider_v1_FetchResponse__Output>): grpc.ClientUnaryCall;
  fetch(argument: _gateway_provider_v1_FetchRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_gateway_provider_v1_FetchResponse__Output>): grpc.ClientUnaryCall;
  fetch(argument: _gateway_provider_v1_FetchRequest, callback: grpc.requestCallback<_gateway_provider_v1_FetchResponse__Output>): grpc.ClientUnaryCall;
  
}

export interface ProviderProxyHandlers extends grpc.UntypedServiceImplementation {
  Exchange: grpc.handleBidiStreamingCall<_gateway_provider_v1_ClientFrames__Output, _gateway_provider_v1_ServerFrames>;
  
  Fetch: grpc.handleUnaryCall<_gateway_provider_v1_FetchRequest__Output, _gateway_provider_v1_FetchResponse>;
  
}

export interface ProviderProxyDefinition extends grpc.ServiceDefinition {
  Exchange: MethodDefinition<_gateway_provider_v1_ClientFrames, _gateway_provider_v1_ServerFrames, _gateway_provider_v1_ClientFrames__Output, _gateway_provider_v1_ServerFrames__Output>
  Fetch: MethodDefinition<_gateway_provider_v1_FetchRequest, _gateway_provider_v1_FetchResponse, _gateway_provider_v1_FetchRequest__Output, _gateway_provider_v1_FetchResponse__Output>
}
