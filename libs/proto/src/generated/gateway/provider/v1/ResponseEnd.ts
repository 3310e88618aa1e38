// Original file: libs/proto/proto/gateway/provider/v1/provider_proxy.proto

import type { Failure as _gateway_provider_v1_Failure, Failure__Output as _gateway_provider_v1_Failure__Output } from '../../../gateway/provider/v1/Failure';

export interface ResponseEnd {
  'failure'?: (_gateway_provider_v1_Failure | null);
}

export interface ResponseEnd__Output {
  'failure': (_gateway_provider_v1_Failure__Output | null);
}
