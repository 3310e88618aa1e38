import { loadSync, type MethodDefinition, type ServiceDefinition } from '@grpc/proto-loader';
import { join } from 'node:path';
import { Enum, Field, MapField, Type } from 'protobufjs';
import { assertEncodesAsBuilt } from './direct-encoding';
import { LOADER_OPTIONS } from './loader-options';
import { providerProxyService } from './provider-proxy.contract';

const SERVICE = 'gateway.provider.v1.ProviderProxy';

/** proto-loader's own serializers (fromObject, then encode): what every message must still encode to, byte for byte. */
function loaderMethods(): ServiceDefinition {
  const definition = loadSync('gateway/provider/v1/provider_proxy.proto', {
    ...LOADER_OPTIONS,
    includeDirs: [join(__dirname, '..', 'proto')],
  });
  return definition[SERVICE] as ServiceDefinition;
}

type Method = MethodDefinition<object, object>;

const fullRequest = {
  correlation_id: 'c-1',
  request_id: 'req-ü-1',
  provider: 'video-ads',
  account_id: '7001',
  path: '/v1.3/advertiser/info/',
  query: 'advertiser_ids=%5B%227001%22%5D&fields=name',
  timeout_ms: 15_000,
  trace_context: { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01', tracestate: 'a=1' },
  key_id: 'key_1',
  method: 'POST',
  body: Buffer.from('{"filter":{"status":"ENABLE"}}'),
  window_bytes: 1 << 20,
  max_body_bytes: 2 * 1024 * 1024 + 1,
};

const head = { status: 200, content_type: 'application/json', headers: { 'x-tt-logid': 'abc', 'retry-after': '3' } };

const cases: Array<{ method: 'Fetch' | 'Exchange'; side: 'request' | 'response'; name: string; value: object }> = [
  { method: 'Fetch', side: 'request', name: 'every field set', value: fullRequest },
  { method: 'Fetch', side: 'request', name: 'the fewest fields', value: { provider: 'video-shop', path: '/x' } },
  { method: 'Fetch', side: 'request', name: 'body as base64 text', value: { ...fullRequest, body: 'eyJhIjoxfQ==' } },
  {
    method: 'Fetch',
    side: 'request',
    name: 'empty values',
    value: { ...fullRequest, body: Buffer.alloc(0), query: '' },
  },
  {
    method: 'Fetch',
    side: 'response',
    name: 'an answer',
    value: {
      status: 429,
      content_type: 'application/json',
      body: Buffer.from('{"code":40100}'),
      headers: head.headers,
    },
  },
  {
    method: 'Fetch',
    side: 'response',
    name: 'a failure',
    value: { failure: { code: 'upstream_timeout', detail: 'no answer in 15 s' }, headers: {} },
  },
  { method: 'Fetch', side: 'response', name: 'a null failure', value: { status: 200, failure: null } },
  {
    method: 'Exchange',
    side: 'request',
    name: 'a turn of frames',
    value: {
      frames: [
        { request: fullRequest },
        { request: { ...fullRequest, correlation_id: 'c-2', body: undefined } },
        { cancel: { correlation_id: 'c-0' } },
        { credit: { correlation_id: 'c-1', bytes: 65_536 } },
      ],
    },
  },
  {
    method: 'Exchange',
    side: 'response',
    name: 'frames of every kind',
    value: {
      frames: [
        { correlation_id: 'c-1', whole: { head, body: Buffer.from('{"code":0,"data":{}}') } },
        { correlation_id: 'c-2', head },
        { correlation_id: 'c-2', chunk: Buffer.alloc(3_000, 7) },
        { correlation_id: 'c-2', end: {} },
        { correlation_id: 'c-3', end: { failure: { code: 'upstream_unavailable', detail: '' } } },
      ],
    },
  },
  { method: 'Exchange', side: 'response', name: 'no frames', value: { frames: [] } },
];

describe('the contract encodes messages without fromObject', () => {
  const ours = providerProxyService() as unknown as Record<string, Method>;
  const loaders = loaderMethods() as unknown as Record<string, Method>;

  it.each(cases)(
    '$method $side, $name: the same bytes as proto-loader, and decodes back',
    ({ method, side, value }) => {
      const serialize = side === 'request' ? 'requestSerialize' : 'responseSerialize';
      const deserialize = side === 'request' ? 'requestDeserialize' : 'responseDeserialize';
      expect(ours[method]![serialize]).not.toBe(loaders[method]![serialize]);
      const bytes = ours[method]![serialize](value);
      expect(Buffer.isBuffer(bytes)).toBe(true);
      expect(bytes.equals(loaders[method]![serialize](value))).toBe(true);
      expect(ours[method]![deserialize](bytes)).toEqual(loaders[method]![deserialize](bytes));
    },
  );

  it('refuses an array, as proto-loader does', () => {
    expect(() => ours.Exchange!.requestSerialize([] as unknown as object)).toThrow(/array/);
  });
});

describe('assertEncodesAsBuilt', () => {
  const message = (...fields: Array<Field | MapField>) => {
    const type = new Type('Probe');
    for (const field of fields) type.add(field as Field);
    return type;
  };

  it('takes strings, numbers, bytes, maps and nested messages', () => {
    const inner = message(new Field('bytes', 1, 'uint32'));
    const outer = message(
      new Field('name', 1, 'string'),
      new Field('body', 2, 'bytes'),
      new MapField('tags', 3, 'string', 'string'),
    );
    outer.add(new Field('inner', 4, 'Inner'));
    inner.name = 'Inner';
    outer.add(inner);
    expect(() => assertEncodesAsBuilt(outer)).not.toThrow();
  });

  it('refuses an enum, whose name encode would not turn into its number', () => {
    const type = message(new Field('status', 1, 'Status'));
    type.add(new Enum('Status', { UNKNOWN: 0, OK: 1 }));
    expect(() => assertEncodesAsBuilt(type)).toThrow(/Probe\.status is an enum/);
  });

  it('refuses a 64-bit integer, which callers would hold as a string', () => {
    expect(() => assertEncodesAsBuilt(message(new Field('bytes_sent', 1, 'uint64')))).toThrow(/64-bit/);
    expect(() => assertEncodesAsBuilt(message(new MapField('by_id', 1, 'int64', 'string')))).toThrow(/64-bit/);
  });

  it('finds them inside a nested message', () => {
    const inner = new Type('Inner').add(new Field('size', 1, 'sint64'));
    const outer = message(new Field('inner', 1, 'Inner'));
    outer.add(inner);
    expect(() => assertEncodesAsBuilt(outer)).toThrow(/Inner\.size is a 64-bit/);
  });
});
