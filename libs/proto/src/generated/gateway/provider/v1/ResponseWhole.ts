// Original file: libs/proto/proto/gateway/provider/v1/provider_proxy.proto

import type { ResponseHead as _gateway_provider_v1_ResponseHead, ResponseHead__Output as _gateway_provider_v1_ResponseHead__Output } from '../../../gateway/provider/v1/ResponseHead';

export interface ResponseWhole {
  'head'?: (_gateway_provider_v1_ResponseHead | null);
  'body'?: (Buffer | Uint8Array | string);
}

export interface ResponseWhole__Output {
  'head': (_gateway_provider_v1_ResponseHead__Output | null);
  'body': (Buffer);
}
