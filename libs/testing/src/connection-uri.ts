import { randomBytes } from 'node:crypto';

/** FerretDB 1.x accepts database names of [a-zA-Z0-9_-], at most 63 characters; MongoDB accepts those too. */
const MAX_DATABASE_NAME = 63;

/**
 * The same server as `baseUri` with a fresh database name `<prefix>_<time>_<random>`, so that each test file
 * (or each stack run) gets its own database. Query options and credentials are kept. Works on plain and
 * multi-host `mongodb://` / `mongodb+srv://` URIs, which WHATWG URL cannot parse.
 */
export function uniqueDatabaseUri(baseUri: string, prefix = 'test'): string {
  const match = /^(mongodb(?:\+srv)?:\/\/)([^/?]*)(?:\/([^?]*))?(\?.*)?$/.exec(baseUri);
  if (!match) throw new Error(`not a mongodb:// URI: ${redactUri(baseUri)}`);
  const [, scheme, authority, , query = ''] = match;
  const suffix = `_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
  const cleanPrefix =
    prefix
      .toLowerCase()
      .replace(/[^a-z0-9_-]+/g, '_')
      .replace(/^_+|_+$/g, '')
      .slice(0, MAX_DATABASE_NAME - suffix.length) || 'test';
  return `${scheme}${authority}/${cleanPrefix}${suffix}${query}`;
}

/** The database name a MongoDB URI selects, or undefined when it names none. */
export function databaseNameOf(uri: string): string | undefined {
  const match = /^mongodb(?:\+srv)?:\/\/[^/?]*\/([^?]+)/.exec(uri);
  return match?.[1] ? decodeURIComponent(match[1]) : undefined;
}

/** Hides the password of a `scheme://user:password@host` URI, for messages. */
export function redactUri(uri: string): string {
  return uri.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:/@]+):[^@/]*@/i, '$1:***@');
}
