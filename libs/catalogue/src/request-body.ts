/**
 * The largest JSON body forwarded to a platform read (docs/rest.md: 413 payload_too_large above it); searches and
 * report queries are small. edge-auth checks it before the key's actor is asked, provider-proxy again.
 */
export const MAX_REQUEST_BODY_BYTES = 64 * 1024;
