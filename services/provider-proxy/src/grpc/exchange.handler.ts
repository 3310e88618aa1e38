import { IdTable } from '@gateway/collections';
import { ROOT_CONTEXT } from '@opentelemetry/api';
import { Metadata, type handleBidiStreamingCall } from '@grpc/grpc-js';
import {
  PROXY_DRAINING_FAILURE,
  type ClientFrame__Output,
  type ClientFrames__Output,
  type FetchRequest__Output,
  type ResponseHead,
  type ServerFrame,
  type ServerFrames,
} from '@gateway/proto';
import type { Logger } from '@gateway/telemetry';
import type { ProxyMetrics } from '../ops/proxy.metrics';
import { Cancellation } from '../proxy/cancellation';
import { failure, type ProxyFailure } from '../proxy/proxy-failure';
import type { ProxyService, ResponseSink } from '../proxy/proxy.service';
import { FrameWriter, type ExchangeCall } from './frame.writer';

/** Largest body chunk per frame: keeps frames of other requests on the same stream from waiting long. */
export const MAX_CHUNK_BYTES = 64 * 1024;

/** Answers whose body ends within this many bytes travel as one whole frame. */
export const WHOLE_FRAME_MAX_BYTES = MAX_CHUNK_BYTES;

/**
 * The open Exchange streams, so a graceful shutdown can ask each to finish what it has in flight and end,
 * instead of waiting for clients that keep their streams open for as long as the process lives.
 */
export class ExchangeStreams {
  private readonly sessions = new Set<ExchangeSession>();
  private draining = false;

  constructor(
    private readonly proxy: ProxyService,
    private readonly metrics: ProxyMetrics,
    private readonly logger: Logger,
  ) {}

  handler(): handleBidiStreamingCall<ClientFrames__Output, ServerFrames> {
    return (call) => {
      const session = new ExchangeSession(call, this.proxy, this.logger, () => {
        this.sessions.delete(session);
        this.metrics.exchangeStreams.dec();
      });
      this.sessions.add(session);
      this.metrics.exchangeStreams.inc();
      if (this.draining) session.drain();
    };
  }

  /** New requests on open streams are refused; each stream ends once its in-flight requests are answered. */
  drain(): void {
    this.draining = true;
    for (const session of this.sessions) session.drain();
  }

  get open(): number {
    return this.sessions.size;
  }
}

/**
 * One Exchange stream: many requests in flight, each answered by one whole frame, or by head, chunks (at most
 * 64 KiB) and end frames, carrying its correlation id. A Cancel frame aborts that request's platform call; a broken stream
 * aborts all of them. Each incoming message is a batch of frames, handled in order.
 */
class ExchangeSession {
  private readonly inFlight = new IdTable<ExchangeSink>();
  private readonly writer: FrameWriter;
  private clientDone = false;
  private draining = false;
  private finished = false;

  constructor(
    private readonly call: ExchangeCall,
    private readonly proxy: ProxyService,
    private readonly logger: Logger,
    private readonly onFinished: () => void,
  ) {
    // The stream's headers go out before it reads a request: a caller whose stream fails without them knows that
    // no request of that stream reached this service, and sends them again (StreamProviderCaller).
    call.sendMetadata(new Metadata());
    this.writer = new FrameWriter(call);
    call.on('data', (message: ClientFrames__Output) => {
      for (const frame of message.frames) this.onFrame(frame);
    });
    call.on('end', () => {
      this.clientDone = true;
      this.endIfIdle();
    });
    call.on('cancelled', () => this.abortAll('cancelled'));
    call.on('error', (error: Error) => this.abortAll(error.name));
    call.on('close', () => this.abortAll('closed'));
  }

  drain(): void {
    this.draining = true;
    this.endIfIdle();
  }

  private onFrame(frame: ClientFrame__Output): void {
    if (this.finished) return;
    if (frame.cancel) {
      const id = frame.cancel.correlation_id;
      this.inFlight.get(id)?.cancellation.abort();
      this.inFlight.delete(id);
      this.endIfIdle();
      return;
    }
    if (frame.credit) {
      this.inFlight.get(frame.credit.correlation_id)?.grant(frame.credit.bytes);
      return;
    }
    if (frame.request) this.start(frame.request);
  }

  private start(request: FetchRequest__Output): void {
    const id = request.correlation_id;
    if (id === '') {
      void this.writeEnd(id, failure('invalid_request', 'correlation_id is required on Exchange'));
      return;
    }
    if (this.inFlight.has(id)) {
      void this.writeEnd(id, failure('invalid_request', 'correlation_id is already in flight on this stream'));
      return;
    }
    if (this.draining) {
      // The caller sends it again elsewhere when it sees exactly this failure (StreamProviderCaller).
      void this.writeEnd(id, failure(PROXY_DRAINING_FAILURE.code, PROXY_DRAINING_FAILURE.detail));
      return;
    }
    const sink = new ExchangeSink(id, this.writer, new Cancellation(), request.window_bytes);
    this.inFlight.set(id, sink);
    void this.proxy
      .execute(request, sink, { signal: sink.cancellation, baseContext: ROOT_CONTEXT, transport: 'exchange' })
      .finally(() => {
        if (this.inFlight.get(id) === sink) this.inFlight.delete(id);
        this.endIfIdle();
      });
  }

  private async writeEnd(id: string, problem: ProxyFailure): Promise<void> {
    await this.writer.write({ correlation_id: id, end: { failure: problem } });
  }

  private endIfIdle(): void {
    if (this.finished || this.inFlight.size > 0 || !(this.clientDone || this.draining)) return;
    this.finished = true;
    // Frames still waiting for 'drain' go out before the stream's trailers.
    void this.writer.flushed().then(() => {
      this.writer.close();
      this.call.end();
      this.onFinished();
    });
  }

  private abortAll(reason: string): void {
    if (this.inFlight.size > 0) {
      this.logger.info({ in_flight: this.inFlight.size, reason }, 'exchange stream broke; aborting its platform calls');
    }
    for (const sink of this.inFlight.values()) sink.cancellation.abort();
    this.inFlight.clear();
    this.writer.close();
    if (!this.finished) {
      this.finished = true;
      this.onFinished();
    }
  }
}

/**
 * Frames of one request. The head and the first 64 KiB of body are held back: an answer that ends within them goes
 * out as one whole frame (most platform answers are small and arrive at once); a longer one streams as head, chunks
 * and end. A failure before anything went out is then a clean error rather than a broken answer.
 * A request with a window sends no more chunk bytes than the caller has granted: its write() waits for credit, and
 * the platform's body is not read meanwhile.
 */
class ExchangeSink implements ResponseSink {
  private heldHead: ResponseHead | undefined;
  private held: Buffer[] = [];
  private heldBytes = 0;
  private streaming = false;
  /** Chunk bytes that may still go out; unbounded without a window. */
  private window: number;
  private onCredit: (() => void) | undefined;

  constructor(
    private readonly id: string,
    private readonly writer: FrameWriter,
    readonly cancellation: Cancellation,
    windowBytes: number,
  ) {
    this.window = windowBytes > 0 ? windowBytes : Number.POSITIVE_INFINITY;
  }

  grant(bytes: number): void {
    this.window += bytes;
    const wake = this.onCredit;
    this.onCredit = undefined;
    wake?.();
  }

  head(head: { status: number; contentType: string; headers: Record<string, string> }): void {
    this.heldHead = { status: head.status, content_type: head.contentType, headers: head.headers };
  }

  write(chunk: Buffer): Promise<void> | undefined {
    if (this.streaming) return this.sendChunks(chunk);
    if (this.heldBytes + chunk.length <= WHOLE_FRAME_MAX_BYTES) {
      this.held.push(chunk);
      this.heldBytes += chunk.length;
      return undefined;
    }
    return this.startStreaming(chunk);
  }

  private async startStreaming(chunk: Buffer): Promise<void> {
    this.streaming = true;
    if (this.heldHead) await this.send({ correlation_id: this.id, head: this.heldHead });
    await this.sendChunks(Buffer.concat([...this.held.splice(0), chunk]));
  }

  end(): void {
    if (!this.streaming && this.heldHead) {
      const body = this.held.length === 1 ? this.held[0]! : Buffer.concat(this.held);
      void this.send({ correlation_id: this.id, whole: { head: this.heldHead, body } });
      return;
    }
    void this.send({ correlation_id: this.id, end: { failure: null } });
  }

  fail(problem: ProxyFailure): void {
    void this.send({ correlation_id: this.id, end: { failure: problem } });
  }

  private async sendChunks(body: Buffer): Promise<void> {
    let offset = 0;
    while (offset < body.length) {
      if (this.cancellation.aborted) return;
      if (this.window <= 0) {
        await this.credited();
        continue;
      }
      const size = Math.min(MAX_CHUNK_BYTES, body.length - offset, this.window);
      this.window -= size;
      await this.send({ correlation_id: this.id, chunk: body.subarray(offset, offset + size) });
      offset += size;
    }
  }

  /** Resolves on the next credit, or when the request is cancelled. */
  private credited(): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        this.cancellation.removeEventListener('abort', done);
        this.onCredit = undefined;
        resolve();
      };
      this.onCredit = done;
      this.cancellation.addEventListener('abort', done);
    });
  }

  private async send(frame: ServerFrame): Promise<void> {
    if (this.cancellation.aborted) return;
    await this.writer.write(frame);
  }
}
