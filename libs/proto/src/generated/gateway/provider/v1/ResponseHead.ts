// Original file: libs/proto/proto/gateway/provider/v1/provider_proxy.proto


export interface ResponseHead {
  'status'?: (number);
  'content_type'?: (string);
  'headers'?: ({[key: string]: string});
}

export interface ResponseHead__Output {
  'status': (number);
  'content_type': (string);
  'headers': ({[key: string]: string});
}
