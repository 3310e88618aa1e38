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
   * `window_bytes` (streams only; a unary answer comes whole).
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
}

/** Collects a whole answer (MCP tools and tests need the body in one piece). */
export function callBuffered(caller: ProviderCaller, request: FetchRequest): Promise<BufferedAnswer> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let head: ResponseHeadInfo | undefined;
    caller.call(request, {
      onWhole: (value, body) => resolve({ head: value, body }),
      onHead: (value) => (head = value),
      onChunk: (chunk) => chunks.push(chunk),
      onEnd: (failure) =>
        resolve({ ...(head ? { head } : {}), body: Buffer.concat(chunks), ...(failure ? { failure } : {}) }),
    });
  });
}
