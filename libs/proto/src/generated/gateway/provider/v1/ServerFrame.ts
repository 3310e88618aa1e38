// Original file: libs/proto/proto/gateway/provider/v1/provider_proxy.proto

import type { ResponseHead as _gateway_provider_v1_ResponseHead, ResponseHead__Output as _gateway_provider_v1_ResponseHead__Output } from '../../../gateway/provider/v1/ResponseHead';
import type { ResponseEnd as _gateway_provider_v1_ResponseEnd, ResponseEnd__Output as _gateway_provider_v1_ResponseEnd__Output } from '../../../gateway/provider/v1/ResponseEnd';
import type { ResponseWhole as _gateway_provider_v1_ResponseWhole, ResponseWhole__Output as _gateway_provider_v1_ResponseWhole__Output } from '../../../gateway/provider/v1/ResponseWhole';

export interface ServerFrame {
  'correlation_id'?: (string);
  'head'?: (_gateway_provider_v1_ResponseHead | null);
  'chunk'?: (Buffer | Uint8Array | string);
  'end'?: (_gateway_provider_v1_ResponseEnd | null);
  'whole'?: (_gateway_provider_v1_ResponseWhole | null);
  'kind'?: "head"|"chunk"|"end"|"whole";
}

export interface ServerFrame__Output {
  'correlation_id': (string);
  'head'?: (_gateway_provider_v1_ResponseHead__Output | null);
  'chunk'?: (Buffer);
  'end'?: (_gateway_provider_v1_ResponseEnd__Output | null);
  'whole'?: (_gateway_provider_v1_ResponseWhole__Output | null);
  'kind'?: "head"|"chunk"|"end"|"whole";
}
