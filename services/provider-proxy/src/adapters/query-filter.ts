/** Bytes a request target may carry as they are; anything else must have been percent-encoded by the caller. */
const REQUEST_TARGET_QUERY = /^[\x21-\x22\x24-\x7e]*$/;
// A name encoded several times ("access%255Ftoken") is decoded until it stops changing, at most this often.
const MAX_DECODE_ROUNDS = 4;

export type FilteredQuery = { ok: true; query: string; dropped: number } | { ok: false; problem: string };

/**
 * Drops every parameter whose name is one of `owned` (the provider's owned parameters, lower-case; for
 * video-ads spec 4.2: app_id, secret, access_token) and keeps
 * every other parameter byte for byte: values are never decoded or re-encoded, so a JSON-string array stays
 * one parameter exactly as the caller wrote it.
 *
 * A name matches when, after percent-decoding (repeatedly), "+" as space, Unicode NFKC, lower-casing,
 * trimming and dropping a "[...]" suffix, it equals an owned name: `ACCESS_TOKEN`, `access%5Ftoken`,
 * `Access_Token[]` and `ａｃｃｅｓｓ_token` all go. A segment is also dropped when one of its ";"-separated
 * pieces matches, because some servers split queries on ";" too.
 */
export function filterQuery(raw: string, owned: ReadonlySet<string>): FilteredQuery {
  const query = raw.startsWith('?') ? raw.slice(1) : raw;
  if (!REQUEST_TARGET_QUERY.test(query)) {
    return { ok: false, problem: 'the query string holds characters that must be percent-encoded' };
  }
  const kept: string[] = [];
  let dropped = 0;
  for (const segment of query.split('&')) {
    if (segment === '') continue;
    if (segment.split(';').some((piece) => owned.has(normaliseName(nameOf(piece))))) {
      dropped += 1;
      continue;
    }
    kept.push(segment);
  }
  return { ok: true, query: kept.join('&'), dropped };
}

/** `name=value` pairs appended after filtering; both parts are percent-encoded. */
export function appendParams(query: string, params: ReadonlyArray<readonly [string, string]>): string {
  const extra = params.map(([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(value)}`);
  return [query, ...extra].filter((part) => part !== '').join('&');
}

function nameOf(segment: string): string {
  const equals = segment.indexOf('=');
  return equals === -1 ? segment : segment.slice(0, equals);
}

/** Names that every step of normaliseSpelling leaves as they are: most names of most requests. */
const PLAIN_NAME = /^[a-z0-9_.-]*$/;

/** The name as a lenient server might read it. Exported for tests. */
export function normaliseName(name: string): string {
  return PLAIN_NAME.test(name) ? name : normaliseSpelling(name);
}

/** Every step of normaliseName, for any name (exported for the test that holds the two equal). */
export function normaliseSpelling(name: string): string {
  let current = name;
  for (let round = 0; round < MAX_DECODE_ROUNDS; round++) {
    const decoded = lenientDecode(current.replace(/\+/g, ' '));
    if (decoded === current) break;
    current = decoded;
  }
  // A C-string reader stops at NUL; surrounding blanks and control bytes are ignored by lenient parsers.
  const [beforeNul = ''] = current.split('\u0000');
  return beforeNul
    .normalize('NFKC')
    .toLowerCase()
    .replace(/\[[^\]]*\]$/, '')
    .replace(/^[\s\u0001-\u001f\u007f]+|[\s\u0001-\u001f\u007f]+$/g, '');
}

/** Decodes every valid %XX run; an invalid escape or invalid UTF-8 is kept as written instead of throwing. */
function lenientDecode(text: string): string {
  if (!text.includes('%')) return text;
  try {
    return decodeURIComponent(text);
  } catch {
    return text.replace(/(?:%[0-9a-fA-F]{2})+/g, (run) => {
      try {
        return decodeURIComponent(run);
      } catch {
        return run;
      }
    });
  }
}

/**
 * The first top-level field of a JSON object body that the provider owns (normalised like a query name), or
 * undefined. The body is forwarded byte for byte (signatures cover it), so such a field is refused rather than
 * silently rewritten.
 */
export function ownedBodyField(body: Record<string, unknown>, owned: ReadonlySet<string>): string | undefined {
  return Object.keys(body).find((name) => owned.has(normaliseName(name)));
}
