// Original file: libs/proto/proto/gateway/provider/v1/provider_proxy.proto

import type { Failure as _gateway_provider_v1_Failure, Failure__Output as _gateway_provider_v1_Failure__Output } from '../../../gateway/provider/v1/Failure';

export interface FetchResponse {
  'status'?: (number);
  'content_type'?: (string);
  'body'?: (Buffer | Uint8Array | string);
  'failure'?: (_gateway_provider_v1_Failure | null);
  'headers'?: ({[key: string]: string});
}

export interface FetchResponse__Output {
  'status': (number);
  'content_type': (string);
  'body': (Buffer);
  'failure': (_gateway_provider_v1_Failure__Output | null);
  'headers': ({[key: string]: string});
}
