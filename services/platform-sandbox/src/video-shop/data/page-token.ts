import { hashSeed } from '../../video-ads/data/prng';

const VERSION = 1;
const TOKEN_BYTES = 13;

/**
 * Opaque next_page_token: standard base64 (so tokens hold "+", "/" and "=", which clients must encode in the
 * query) of a version byte, the offset, and a fingerprint of the query that produced it. A token replayed
 * against other filters, another sort or another shop is refused instead of silently skipping rows.
 */
export function encodePageToken(offset: number, fingerprint: string): string {
  const bytes = Buffer.alloc(TOKEN_BYTES);
  bytes.writeUInt8(VERSION, 0);
  bytes.writeUInt32BE(offset, 1);
  bytes.writeUInt32BE(hashSeed(fingerprint), 5);
  bytes.writeUInt32BE(hashSeed(`${fingerprint}#${offset}`), 9);
  return bytes.toString('base64');
}

/** The offset a token stands for, or undefined when it is malformed or belongs to another query. */
export function decodePageToken(token: string, fingerprint: string): number | undefined {
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(token)) return undefined;
  const bytes = Buffer.from(token, 'base64');
  if (bytes.length !== TOKEN_BYTES || bytes.readUInt8(0) !== VERSION) return undefined;
  const offset = bytes.readUInt32BE(1);
  if (bytes.readUInt32BE(5) !== hashSeed(fingerprint)) return undefined;
  if (bytes.readUInt32BE(9) !== hashSeed(`${fingerprint}#${offset}`)) return undefined;
  return offset;
}

export interface Page<T> {
  items: T[];
  nextPageToken: string;
}

/** One page of `items` after the token's offset; next_page_token is "" on the last page. */
export function pageOf<T>(
  items: readonly T[],
  pageSize: number,
  pageToken: string | undefined,
  fingerprint: string,
): Page<T> | undefined {
  let offset = 0;
  if (pageToken !== undefined && pageToken !== '') {
    const decoded = decodePageToken(pageToken, fingerprint);
    if (decoded === undefined || decoded > items.length) return undefined;
    offset = decoded;
  }
  const end = offset + pageSize;
  return {
    items: items.slice(offset, end),
    nextPageToken: end < items.length ? encodePageToken(end, fingerprint) : '',
  };
}
