// Original file: libs/proto/proto/gateway/provider/v1/provider_proxy.proto

import type { ServerFrame as _gateway_provider_v1_ServerFrame, ServerFrame__Output as _gateway_provider_v1_ServerFrame__Output } from '../../../gateway/provider/v1/ServerFrame';

export interface ServerFrames {
  'frames'?: (_gateway_provider_v1_ServerFrame)[];
}

export interface ServerFrames__Output {
  'frames': (_gateway_provider_v1_ServerFrame__Output)[];
}
