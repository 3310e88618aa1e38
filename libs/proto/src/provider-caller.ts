import type { FetchRequest } from './generated/gateway/provider/v1/FetchRequest';
import type { Failure__Output } from './generated/gateway/provider/v1/Failure';

export interface ResponseHeadInfo {
  status: number;
  contentType: string;
  headers: Record<string, string>;
}

/**
 * Receives one platform answer as it streams: a head, body chunks, then exactly one end; or, when the sink takes
 * it and the answer came complete, one onWhole call instead of all three.
 */
export interface ResponseSink {
  onHead(head: ResponseHeadInfo): void;
  onChunk(chunk: Buffer): void;
  /** failure is set when the gateway could not obtain (all of) the platform's answer. */
  onEnd(failure?: Failure__Output): void;
  onWhole?(head: ResponseHeadInfo, body: Buffer): void;
}

/** Hands a complete answer to a sink: in one call when it takes one, else as head, body and end. */
export function deliverWhole(sink: ResponseSink, head: ResponseHeadInfo, body: Buffer): void {
  if (sink.onWhole) return sink.onWhole(head, body);
  sink.onHead(head);
  if (body.length > 0) sink.onChunk(body);
  sink.onEnd();
}

/** One request in flight. */
export interface ProviderCall {
  cancel(): void;
  /**
   * The sink passed `bytes` more of the body on: provider-proxy may send that many more of an answer asked with a
   * `window_bytes` (streams only; a unary answer comes in one message).
   */
  credit(bytes: number): void;
}

/** How edge-auth and mcp-server reach provider-proxy: unary calls or a multiplexed stream. */
export interface ProviderCaller {
  call(request: FetchRequest, sink: ResponseSink): ProviderCall;
  close(): void;
}

export interface BufferedAnswer {
  head?: ResponseHeadInfo;
  body: Buffer;
  failure?: Failure__Output;
  /** The answer was longer than `maxBytes`: `body` is its first `maxBytes` bytes, and the call was cancelled there. */
  cut?: true;
}

/** A buffered answer with the fields it has: a head only once one came. */
function answer(
  head: ResponseHeadInfo | undefined,
  body: Buffer,
  outcome: Pick<BufferedAnswer, 'failure' | 'cut'>,
): BufferedAnswer {
  const buffered: BufferedAnswer = { body, ...outcome };
  if (head) buffered.head = head;
  return buffered;
}

/**
 * Collects a whole answer (MCP tools and tests need the body in one piece). With `maxBytes`, at most that much of the
 * body is kept: the request asks for a window of one byte more (a stream sends no more than that, since no credit is
 * ever given back) and the call is cancelled once the answer passes `maxBytes`, so provider-proxy stops reading from
 * the platform and a large answer costs the caller about `maxBytes`. A unary call asks for `max_body_bytes` of one byte
 * more instead: provider-proxy stops the body there, and the caller cuts the one byte over.
 */
export function callBuffered(
  caller: ProviderCaller,
  request: FetchRequest,
  options: { maxBytes?: number } = {},
): Promise<BufferedAnswer> {
  const maxBytes = options.maxBytes ?? Number.POSITIVE_INFINITY;
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let bytes = 0;
    let head: ResponseHeadInfo | undefined;
    let settled = false;
    const settle = (answer: BufferedAnswer) => {
      if (settled) return;
      settled = true;
      resolve(answer);
    };
    const cutAt = (whole: Buffer): BufferedAnswer => answer(head, whole.subarray(0, maxBytes), { cut: true });
    /** The call, once caller.call returned: a sink called from inside it cancels when it returns. */
    const pending: { call?: ProviderCall; cancelOnReturn?: boolean } = {};
    const windowed = Number.isFinite(maxBytes)
      ? Object.assign({}, request, {
          window_bytes: request.window_bytes ?? maxBytes + 1,
          max_body_bytes: request.max_body_bytes ?? maxBytes + 1,
        })
      : request;
    pending.call = caller.call(windowed, {
      onWhole: (value, body) => {
        head = value;
        settle(body.length > maxBytes ? cutAt(body) : { head: value, body });
      },
      onHead: (value) => (head = value),
      onChunk: (chunk) => {
        if (settled) return;
        chunks.push(chunk);
        bytes += chunk.length;
        if (bytes <= maxBytes) return;
        settle(cutAt(Buffer.concat(chunks)));
        chunks.length = 0;
        if (pending.call) pending.call.cancel();
        else pending.cancelOnReturn = true;
      },
      onEnd: (failure) => settle(answer(head, Buffer.concat(chunks), failure ? { failure } : {})),
    });
    if (pending.cancelOnReturn) pending.call.cancel();
  });
}
