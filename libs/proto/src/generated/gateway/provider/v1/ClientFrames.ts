// Original file: libs/proto/proto/gateway/provider/v1/provider_proxy.proto

import type { ClientFrame as _gateway_provider_v1_ClientFrame, ClientFrame__Output as _gateway_provider_v1_ClientFrame__Output } from '../../../gateway/provider/v1/ClientFrame';

export interface ClientFrames {
  'frames'?: (_gateway_provider_v1_ClientFrame)[];
}

export interface ClientFrames__Output {
  'frames': (_gateway_provider_v1_ClientFrame__Output)[];
}
