import { context as otelContext } from '@opentelemetry/api';
import type { handleUnaryCall } from '@grpc/grpc-js';
import type { FetchRequest__Output, FetchResponse } from '@gateway/proto';
import { Cancellation } from '../proxy/cancellation';
import { failure } from '../proxy/proxy-failure';
import type { AnswerHead, ProxyService, ResponseSink } from '../proxy/proxy.service';

/**
 * Unary Fetch: the whole answer in one message. A failure is a normal response with `failure` set (gRPC
 * status OK), so callers handle gateway failures and platform answers in one place. With `max_body_bytes`, the body
 * stops after that many bytes and the platform is no longer read: a caller that wants at most N bytes asks for N + 1
 * and knows from a longer body that the answer went on (callBuffered in @gateway/proto). `window_bytes` is the
 * Exchange's flow control and does not apply here: a unary answer is one message.
 */
export function fetchHandler(
  proxy: ProxyService,
  options: { maxBodyBytes: number },
): handleUnaryCall<FetchRequest__Output, FetchResponse> {
  return (call, callback) => {
    const controller = new Cancellation();
    call.once('cancelled', () => controller.abort());
    let head: AnswerHead | undefined;
    const chunks: Buffer[] = [];
    let size = 0;
    let response: FetchResponse | undefined;
    const limit = call.request.max_body_bytes > 0 ? call.request.max_body_bytes : Number.POSITIVE_INFINITY;
    const answer = (): FetchResponse => ({
      status: head?.status ?? 0,
      content_type: head?.contentType ?? '',
      headers: head?.headers ?? {},
      body: Buffer.concat(chunks, size),
    });

    const sink: ResponseSink = {
      head(value) {
        head = value;
      },
      // Every chunk is taken at once: the answer is sent whole (unary).
      write(chunk) {
        if (response) return undefined;
        if (size + chunk.length > limit) {
          chunks.push(chunk.subarray(0, limit - size));
          size = limit;
          response = answer();
          controller.abort();
          return undefined;
        }
        size += chunk.length;
        if (size > options.maxBodyBytes) {
          response = {
            failure: failure('platform_answer_too_large', `the platform answer exceeds ${options.maxBodyBytes} bytes`),
          };
          controller.abort();
          return undefined;
        }
        chunks.push(chunk);
        return undefined;
      },
      end() {
        response ??= answer();
      },
      fail(problem) {
        response = { failure: problem };
      },
    };

    // The gRPC instrumentation made the call's span active; trace_context of the message wins when set.
    void proxy
      .execute(call.request, sink, { signal: controller, baseContext: otelContext.active(), transport: 'fetch' })
      .then(() => {
        if (call.cancelled) return;
        callback(null, response ?? { failure: failure('internal_error', 'the request ended without an answer') });
      });
  };
}
