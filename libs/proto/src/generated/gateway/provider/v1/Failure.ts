// Original file: libs/proto/proto/gateway/provider/v1/provider_proxy.proto


export interface Failure {
  'code'?: (string);
  'detail'?: (string);
}

export interface Failure__Output {
  'code': (string);
  'detail': (string);
}
