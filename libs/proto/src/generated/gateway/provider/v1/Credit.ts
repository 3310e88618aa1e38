// Original file: libs/proto/proto/gateway/provider/v1/provider_proxy.proto


export interface Credit {
  'correlation_id'?: (string);
  'bytes'?: (number);
}

export interface Credit__Output {
  'correlation_id': (string);
  'bytes': (number);
}
