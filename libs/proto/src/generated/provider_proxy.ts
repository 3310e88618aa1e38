import type * as grpc from '@grpc/grpc-js';
import type { MessageTypeDefinition } from '@grpc/proto-loader';

import type { Cancel as _gateway_provider_v1_Cancel, Cancel__Output as _gateway_provider_v1_Cancel__Output } from './gateway/provider/v1/Cancel';
import type { ClientFrame as _gateway_provider_v1_ClientFrame, ClientFrame__Output as _gateway_provider_v1_ClientFrame__Output } from './gateway/provider/v1/ClientFrame';
import type { ClientFrames as _gateway_provider_v1_ClientFrames, ClientFrames__Output as _gateway_provider_v1_ClientFrames__Output } from './gateway/provider/v1/ClientFrames';
import type { Credit as _gateway_provider_v1_Credit, Credit__Output as _gateway_provider_v1_Credit__Output } from './gateway/provider/v1/Credit';
import type { Failure as _gateway_provider_v1_Failure, Failure__Output as _gateway_provider_v1_Failure__Output } from './gateway/provider/v1/Failure';
import type { FetchRequest as _gateway_provider_v1_FetchRequest, FetchRequest__Output as _gateway_provider_v1_FetchRequest__Output } from './gateway/provider/v1/FetchRequest';
import type { FetchResponse as _gateway_provider_v1_FetchResponse, FetchResponse__Output as _gateway_provider_v1_FetchResponse__Output } from './gateway/provider/v1/FetchResponse';
import type { ProviderProxyClient as _gateway_provider_v1_ProviderProxyClient, ProviderProxyDefinition as _gateway_provider_v1_ProviderProxyDefinition } from './gateway/provider/v1/ProviderProxy';
import type { ResponseEnd as _gateway_provider_v1_ResponseEnd, ResponseEnd__Output as _gateway_provider_v1_ResponseEnd__Output } from './gateway/provider/v1/ResponseEnd';
import type { ResponseHead as _gateway_provider_v1_ResponseHead, ResponseHead__Output as _gateway_provider_v1_ResponseHead__Output } from './gateway/provider/v1/ResponseHead';
import type { ResponseWhole as _gateway_provider_v1_ResponseWhole, ResponseWhole__Output as _gateway_provider_v1_ResponseWhole__Output } from './gateway/provider/v1/ResponseWhole';
import type { ServerFrame as _gateway_provider_v1_ServerFrame, ServerFrame__Output as _gateway_provider_v1_ServerFrame__Output } from './gateway/provider/v1/ServerFrame';
import type { ServerFrames as _gateway_provider_v1_ServerFrames, ServerFrames__Output as _gateway_provider_v1_ServerFrames__Output } from './gateway/provider/v1/ServerFrames';

type SubtypeConstructor<Constructor extends new (...args: any) => any, Subtype> = {
  new(...args: ConstructorParameters<Constructor>): Subtype;
};

export interface ProtoGrpcType {
  gateway: {
    provider: {
      v1: {
        Cancel: MessageTypeDefinition<_gateway_provider_v1_Cancel, _gateway_provider_v1_Cancel__Output>
        ClientFrame: MessageTypeDefinition<_gateway_provider_v1_ClientFrame, _gateway_provider_v1_ClientFrame__Output>
        ClientFrames: MessageTypeDefinition<_gateway_provider_v1_ClientFrames, _gateway_provider_v1_ClientFrames__Output>
        Credit: MessageTypeDefinition<_gateway_provider_v1_Credit, _gateway_provider_v1_Credit__Output>
        Failure: MessageTypeDefinition<_gateway_provider_v1_Failure, _gateway_provider_v1_Failure__Output>
        FetchRequest: MessageTypeDefinition<_gateway_provider_v1_FetchRequest, _gateway_provider_v1_FetchRequest__Output>
        FetchResponse: MessageTypeDefinition<_gateway_provider_v1_FetchResponse, _gateway_provider_v1_FetchResponse__Output>
        ProviderProxy: SubtypeConstructor<typeof grpc.Client, _gateway_provider_v1_ProviderProxyClient> & { service: _gateway_provider_v1_ProviderProxyDefinition }
        ResponseEnd: MessageTypeDefinition<_gateway_provider_v1_ResponseEnd, _gateway_provider_v1_ResponseEnd__Output>
        ResponseHead: MessageTypeDefinition<_gateway_provider_v1_ResponseHead, _gateway_provider_v1_ResponseHead__Output>
        ResponseWhole: MessageTypeDefinition<_gateway_provider_v1_ResponseWhole, _gateway_provider_v1_ResponseWhole__Output>
        ServerFrame: MessageTypeDefinition<_gateway_provider_v1_ServerFrame, _gateway_provider_v1_ServerFrame__Output>
        ServerFrames: MessageTypeDefinition<_gateway_provider_v1_ServerFrames, _gateway_provider_v1_ServerFrames__Output>
      }
    }
  }
}

