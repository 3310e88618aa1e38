import type { Attributes, AttributeValue, Span } from '@opentelemetry/api';

/**
 * Words that mark a name as holding a credential. Names are split into words (on `.`, `_`, `-` and camelCase)
 * rather than searched for substrings, so `access_token` and `x-api-key` are caught while
 * `gen_ai.usage.input_tokens` or `tokenizer` are kept.
 */
const SECRET_WORDS = new Set([
  'token',
  'secret',
  'secrets',
  'password',
  'passwords',
  'passwd',
  'cookie',
  'cookies',
  'authorization',
  'apikey',
  'credential',
  'credentials',
  'signature',
]);

/** `key` alone is too common (`cache.key`) to be a secret word; it is one after these words. */
const KEY_QUALIFIERS = new Set(['api', 'access', 'private', 'secret', 'signing', 'encryption']);

/** Query parameters that carry credentials under a name that is too short to be a secret word elsewhere. */
const SECRET_QUERY_NAMES = new Set(['key', 'code', 'sig', 'auth']);

const REDACTED = 'REDACTED';

function words(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase()
    .split(/[^a-z0-9]+/);
}

/**
 * Names already judged. Span attribute keys are a few constants set on every sampled span, and splitting one into
 * words was the costliest part of recording a span. Caller-chosen names (headers, query parameters) could grow
 * the map without end, so past the limit a name is judged each time.
 */
const judgedNames = new Map<string, boolean>();
const JUDGED_NAMES_LIMIT = 4096;

/** True when an attribute key, header or query parameter name looks like it holds a credential. */
export function isSecretName(name: string): boolean {
  const judged = judgedNames.get(name);
  if (judged !== undefined) return judged;
  const secret = hasSecretWord(name);
  if (judgedNames.size < JUDGED_NAMES_LIMIT) judgedNames.set(name, secret);
  return secret;
}

function hasSecretWord(name: string): boolean {
  const parts = words(name);
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i] as string;
    if (SECRET_WORDS.has(part)) return true;
    if (part === 'key' && i > 0 && KEY_QUALIFIERS.has(parts[i - 1] as string)) return true;
  }
  return false;
}

/** A value that is itself a credential whatever its key: an HTTP Authorization header value. */
function looksLikeCredential(value: AttributeValue | undefined): boolean {
  return typeof value === 'string' && /^(bearer|basic)\s+\S+$/i.test(value);
}

/**
 * Sets the attributes on the span, dropping every one whose key looks like a credential (api_key,
 * authorization, token, secret, password, cookie, …) or whose value is a bearer/basic credential.
 * Dropped, not masked: a masked attribute still tells a reader of the trace which secret the request carried.
 */
export function setSafeAttributes(span: Span, attributes: Attributes): void {
  if (!span.isRecording()) return;
  for (const key in attributes) {
    const value = attributes[key];
    if (value === undefined || isSecretName(key) || looksLikeCredential(value)) continue;
    span.setAttribute(key, value);
  }
}

/**
 * The URL with the value of every credential-like query parameter replaced by `REDACTED`. Unparseable input
 * is returned without its query string rather than as is.
 */
export function redactUrl(url: string): string {
  const queryStart = url.indexOf('?');
  if (queryStart === -1) return url;
  let params: URLSearchParams;
  try {
    params = new URLSearchParams(url.slice(queryStart + 1));
  } catch {
    return url.slice(0, queryStart);
  }
  let redacted = false;
  for (const name of new Set(params.keys())) {
    if (isSecretName(name) || SECRET_QUERY_NAMES.has(name.toLowerCase())) {
      params.set(name, REDACTED);
      redacted = true;
    }
  }
  return redacted ? `${url.slice(0, queryStart)}?${params.toString()}` : url;
}

/**
 * Query parameter names the HTTP instrumentation redacts on client and server spans; it matches them
 * exactly, so the common spellings are listed (platform APIs pass `access_token` and `key` in the query).
 */
export const SECRET_QUERY_PARAMS: readonly string[] = [
  // the instrumentation's own defaults, which setting this list replaces
  'sig',
  'Signature',
  'AWSAccessKeyId',
  'X-Goog-Signature',
  'X-Amz-Signature',
  'X-Amz-Credential',
  'X-Amz-Security-Token',
  'access_token',
  'refresh_token',
  'id_token',
  'token',
  'api_key',
  'apikey',
  'apiKey',
  'key',
  'client_secret',
  'secret',
  'password',
  'code',
  'auth',
  'auth_code',
  'signature',
  'app_secret',
  'partner_key',
  'client_assertion',
];

/** Attributes of an incoming request's span that carry its query string. */
const QUERY_ATTRIBUTES = ['url.query', 'url.full', 'http.target', 'http.url'] as const;
const LONG_NAME = 64;

/**
 * A query string with every value replaced by `REDACTED`, names kept (long ones too: a name can be a bare token).
 * Callers put credentials in queries under any spelling (`APP_SECRET`, `app%5Fsecret`, `partner_key`), which a
 * list of names cannot foresee; the names alone still tell what was asked.
 */
export function redactQueryValues(query: string): string {
  if (query === '') return query;
  return query
    .split('&')
    .map((segment) => {
      const equals = segment.indexOf('=');
      const name = equals === -1 ? segment : segment.slice(0, equals);
      const safeName = name.length > LONG_NAME || looksLikeCredential(name) ? REDACTED : name;
      return equals === -1 ? safeName : `${safeName}=${REDACTED}`;
    })
    .join('&');
}

/** Rewrites the query-bearing attributes of a server span so that no query value of the caller is kept. */
export function redactIncomingQuery(span: Span): void {
  const attributes = (span as unknown as { attributes?: Attributes }).attributes;
  if (attributes === undefined) return;
  for (const name of QUERY_ATTRIBUTES) {
    const value = attributes[name];
    if (typeof value !== 'string') continue;
    const at = value.indexOf('?');
    if (name === 'url.query')
      span.setAttribute(name, redactQueryValues(value.startsWith('?') ? value.slice(1) : value));
    else if (at !== -1) span.setAttribute(name, `${value.slice(0, at)}?${redactQueryValues(value.slice(at + 1))}`);
  }
}
