import { InMemorySpanExporter, NodeTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-node';
import { isSecretName, redactUrl, setSafeAttributes } from './safe-attributes';

describe('setSafeAttributes', () => {
  const exporter = new InMemorySpanExporter();
  const tracer = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }).getTracer('test');

  function attributesAfter(attributes: Parameters<typeof setSafeAttributes>[1]) {
    exporter.reset();
    const span = tracer.startSpan('s');
    setSafeAttributes(span, attributes);
    span.end();
    return exporter.getFinishedSpans()[0]?.attributes;
  }

  it('drops every attribute whose key names a credential and keeps the others', () => {
    expect(
      attributesAfter({
        'gateway.account_id': 'act_1',
        'http.route': '/v1/reports',
        api_key: 'k1',
        'x-api-key': 'k2',
        apiKey: 'k3',
        'http.request.header.authorization': 'Basic eA==',
        'http.request.header.cookie': 'sid=1',
        'http.response.header.set-cookie': 'sid=2',
        access_token: 't1',
        refreshToken: 't2',
        'oauth.client_secret': 's1',
        'db.password': 'p1',
        'gateway.credentials': 'c1',
      }),
    ).toEqual({ 'gateway.account_id': 'act_1', 'http.route': '/v1/reports' });
  });

  it('drops a bearer or basic credential whatever its key', () => {
    expect(attributesAfter({ 'gateway.upstream_header': 'Bearer abc', note: 'bearer of good news' })).toEqual({
      note: 'bearer of good news',
    });
  });

  it('keeps keys that only contain a secret word inside a longer word', () => {
    expect(
      attributesAfter({ 'gen_ai.usage.input_tokens': 12, tokenizer: 'bpe', 'cache.key': 'k', keyword: 'x' }),
    ).toEqual({ 'gen_ai.usage.input_tokens': 12, tokenizer: 'bpe', 'cache.key': 'k', keyword: 'x' });
  });

  it('does nothing on a span that is not recording', () => {
    const span = tracer.startSpan('s');
    span.end();
    expect(() => setSafeAttributes(span, { a: 1 })).not.toThrow();
  });
});

describe('isSecretName', () => {
  it.each(['api_key', 'X-Api-Key', 'Authorization', 'proxy-authorization', 'id_token', 'passwd', 'private_key'])(
    'calls %s secret',
    (name) => expect(isSecretName(name)).toBe(true),
  );
  it.each(['http.route', 'messaging.destination.name', 'input_tokens', 'monkey', 'keys'])('calls %s safe', (name) =>
    expect(isSecretName(name)).toBe(false),
  );

  it('judges a name the same every time, also after callers sent thousands of names of their own', () => {
    for (let i = 0; i < 10_000; i++) expect(isSecretName(`x-caller-header-${i}`)).toBe(false);
    for (const name of ['x-late-api-key', 'late_password', 'http.route', 'api_key']) {
      const first = isSecretName(name);
      expect(isSecretName(name)).toBe(first);
      expect(first).toBe(name !== 'http.route');
    }
  });
});

describe('redactUrl', () => {
  it('replaces the values of credential query parameters', () => {
    expect(redactUrl('https://graph.example/v19/act_1/insights?access_token=EAAB&fields=spend&key=AIza')).toBe(
      'https://graph.example/v19/act_1/insights?access_token=REDACTED&fields=spend&key=REDACTED',
    );
  });

  it('returns a URL without credentials unchanged', () => {
    const url = 'https://api.example/v1/items?page=2&sort=-date';
    expect(redactUrl(url)).toBe(url);
    expect(redactUrl('https://api.example/v1/items')).toBe('https://api.example/v1/items');
  });
});
