// Original file: libs/proto/proto/gateway/provider/v1/provider_proxy.proto


export interface FetchRequest {
  'correlation_id'?: (string);
  'request_id'?: (string);
  'provider'?: (string);
  'account_id'?: (string);
  'path'?: (string);
  'query'?: (string);
  'timeout_ms'?: (number);
  'trace_context'?: ({[key: string]: string});
  'key_id'?: (string);
  'method'?: (string);
  'body'?: (Buffer | Uint8Array | string);
  'window_bytes'?: (number);
  'max_body_bytes'?: (number);
}

export interface FetchRequest__Output {
  'correlation_id': (string);
  'request_id': (string);
  'provider': (string);
  'account_id': (string);
  'path': (string);
  'query': (string);
  'timeout_ms': (number);
  'trace_context': ({[key: string]: string});
  'key_id': (string);
  'method': (string);
  'body': (Buffer);
  'window_bytes': (number);
  'max_body_bytes': (number);
}
