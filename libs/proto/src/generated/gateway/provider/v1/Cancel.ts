// Original file: libs/proto/proto/gateway/provider/v1/provider_proxy.proto


export interface Cancel {
  'correlation_id'?: (string);
}

export interface Cancel__Output {
  'correlation_id': (string);
}
