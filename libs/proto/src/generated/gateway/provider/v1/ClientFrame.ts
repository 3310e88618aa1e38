// Original file: libs/proto/proto/gateway/provider/v1/provider_proxy.proto

import type { FetchRequest as _gateway_provider_v1_FetchRequest, FetchRequest__Output as _gateway_provider_v1_FetchRequest__Output } from '../../../gateway/provider/v1/FetchRequest';
import type { Cancel as _gateway_provider_v1_Cancel, Cancel__Output as _gateway_provider_v1_Cancel__Output } from '../../../gateway/provider/v1/Cancel';
import type { Credit as _gateway_provider_v1_Credit, Credit__Output as _gateway_provider_v1_Credit__Output } from '../../../gateway/provider/v1/Credit';

export interface ClientFrame {
  'request'?: (_gateway_provider_v1_FetchRequest | null);
  'cancel'?: (_gateway_provider_v1_Cancel | null);
  'credit'?: (_gateway_provider_v1_Credit | null);
  'kind'?: "request"|"cancel"|"credit";
}

export interface ClientFrame__Output {
  'request'?: (_gateway_provider_v1_FetchRequest__Output | null);
  'cancel'?: (_gateway_provider_v1_Cancel__Output | null);
  'credit'?: (_gateway_provider_v1_Credit__Output | null);
  'kind'?: "request"|"cancel"|"credit";
}
