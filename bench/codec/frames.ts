/**
 * Exchange messages as the services build them, for the codec bench: the strings in them are of the kinds V8 makes
 * on the forward path (literals, concatenations, slices of the request target, parsed JSON), because the codec's cost
 * depends on them (libs/proto/src/reflected-codec.ts, utf8Length).
 */
import type { ClientFrames, FetchRequest, ServerFrames } from '@gateway/proto';

const ANSWER_BYTES = 846;
const hex = (value: number, width: number): string => value.toString(16).padStart(width, '0');

/** What edge-auth's gateway handler hands its caller for one request, before the caller adds the correlation id. */
function forwardedRequest(index: number): FetchRequest {
  const target = `/v1/video-ads/v1.3/report/integrated/get/?advertiser_id=${7_000_000 + (index % 50)}&page=${index % 7}`;
  const queryAt = target.indexOf('?');
  const body = index % 9 === 0 ? { body: Buffer.from(`{"page":${index % 7}}`) } : {};
  return {
    request_id: `req_${hex(index, 20)}`,
    provider: 'video-ads',
    account_id: JSON.parse(`"acct_${index % 50}"`) as string,
    path: target.slice('/v1/video-ads'.length, queryAt),
    query: target.slice(queryAt + 1),
    method: 'GET',
    ...body,
    timeout_ms: 30_000,
    trace_context: { traceparent: `00-${hex(index * 7919, 32)}-${hex(index, 16)}-00` },
    key_id: JSON.parse(`"key_${index % 64}"`) as string,
    window_bytes: 1024 * 1024,
  };
}

/** edge-auth's message of one turn: one to four requests, and now and then a credit for an answer read. */
export function clientMessages(count: number): ClientFrames[] {
  return Array.from({ length: count }, (_, index) => {
    const frames: NonNullable<ClientFrames['frames']> = [];
    for (let at = 0; at < 1 + (index % 4); at++) {
      const correlation = { correlation_id: String(index * 8 + at) };
      frames.push({ request: Object.assign({}, forwardedRequest(index + at), correlation) });
    }
    if (index % 3 === 0) frames.push({ credit: { correlation_id: String(index * 8), bytes: 65_536 } });
    return { frames };
  });
}

/** provider-proxy's message of one turn: one to four whole answers of a video-ads report page. */
export function serverMessages(count: number): ServerFrames[] {
  const body = Buffer.alloc(ANSWER_BYTES, 'a');
  return Array.from({ length: count }, (_, index) => ({
    frames: Array.from({ length: 1 + (index % 4) }, (_, at) => ({
      correlation_id: String(index * 8 + at),
      whole: {
        head: {
          status: 200,
          content_type: 'application/json',
          headers: { 'x-tt-logid': hex(index * 31 + at, 24), 'x-request-id': `r${hex(index + at, 12)}` },
        },
        body,
      },
    })),
  }));
}
