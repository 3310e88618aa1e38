export { LOADER_OPTIONS } from './loader-options';
export {
  providerProxyService,
  createRawProviderProxyClient,
  PROVIDER_PROXY_CHANNEL_OPTIONS,
  MAX_MESSAGE_BYTES,
} from './provider-proxy.contract';
export { createProviderProxyClient } from './provider-proxy.client';
export type { ProviderProxyUnaryClient } from './provider-proxy.client';
export { callBuffered } from './provider-caller';
export type { ProviderCall, ProviderCaller, ResponseSink, ResponseHeadInfo, BufferedAnswer } from './provider-caller';
export { UnaryProviderCaller } from './provider-proxy.unary-caller';
export { StreamProviderCaller, PROXY_DRAINING_FAILURE } from './provider-proxy.stream-caller';
export { createProviderCaller } from './provider-caller.factory';
export type { ProviderProxyTransport } from './provider-caller.factory';
export { grpcFailure } from './grpc-failure';
export type { FetchRequest, FetchRequest__Output } from './generated/gateway/provider/v1/FetchRequest';
export type { FetchResponse, FetchResponse__Output } from './generated/gateway/provider/v1/FetchResponse';
export type { Failure, Failure__Output } from './generated/gateway/provider/v1/Failure';
export type { ClientFrame, ClientFrame__Output } from './generated/gateway/provider/v1/ClientFrame';
export type { ClientFrames, ClientFrames__Output } from './generated/gateway/provider/v1/ClientFrames';
export type { ServerFrame, ServerFrame__Output } from './generated/gateway/provider/v1/ServerFrame';
export type { ServerFrames, ServerFrames__Output } from './generated/gateway/provider/v1/ServerFrames';
export type { ResponseHead, ResponseHead__Output } from './generated/gateway/provider/v1/ResponseHead';
export type {
  ProviderProxyClient,
  ProviderProxyHandlers,
  ProviderProxyDefinition,
} from './generated/gateway/provider/v1/ProviderProxy';
