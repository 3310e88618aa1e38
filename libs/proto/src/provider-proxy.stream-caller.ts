import { EarliestDeadline, expireDueIn, IdTable, IndexIds } from '@gateway/collections';
import { Metadata, type ClientDuplexStream } from '@grpc/grpc-js';
import type { ClientFrame } from './generated/gateway/provider/v1/ClientFrame';
import type { ClientFrames } from './generated/gateway/provider/v1/ClientFrames';
import type { FetchRequest } from './generated/gateway/provider/v1/FetchRequest';
import type { ProviderProxyClient } from './generated/gateway/provider/v1/ProviderProxy';
import type { ServerFrame__Output } from './generated/gateway/provider/v1/ServerFrame';
import type { ServerFrames__Output } from './generated/gateway/provider/v1/ServerFrames';
import { deliverWhole, type ProviderCall, type ProviderCaller, type ResponseSink } from './provider-caller';
import { createRawProviderProxyClient } from './provider-proxy.contract';

interface InFlight {
  sink: ResponseSink;
  lane: Lane;
  request: FetchRequest;
  /** The caller's handle: its id follows the request when it is sent again. */
  handle: { id: string; cancelled: boolean };
  /** Date.now() after which the request fails with platform_timeout, across attempts. */
  deadline: number;
  attempt: number;
  headSeen: boolean;
}

type ExchangeStream = ClientDuplexStream<ClientFrames, ServerFrames__Output>;

interface Lane {
  stream: ExchangeStream | null;
  /** A replica's headers came on the lane's stream: from then on a request sent on it may have reached a replica. */
  reached: boolean;
  congested: boolean;
  /** Requests of this lane still in flight (their entries are in the caller's table, which names their lane). */
  inFlight: number;
  /** Frames written during this event-loop turn; they leave as one message when the turn ends. */
  queued: ClientFrame[];
  flushScheduled: boolean;
}

const UNREACHABLE = { code: 'service_unavailable', detail: 'the provider proxy stream broke' };
const NO_REPLICA = { code: 'service_unavailable', detail: 'no provider-proxy replica took the stream' };
/**
 * A new stream waits for a replica to take it (waitForReady) instead of failing at once when the channel has none
 * connected: a replica that restarted while another drains can sit in its reconnect backoff for a second or two. A
 * stream no replica took within this long is given up; its requests never reached one and fail as unavailable.
 */
const CONNECT_BUDGET_MS = 3_000;
/**
 * A replica that is shutting down refuses requests that reach its draining streams before it started them, and ends
 * each stream once it has nothing in flight; either way such a request never reached the platform. It is sent again
 * on a fresh stream, which the channel opens on a replica that is not leaving. Three tries over about 175 ms cover the
 * race between a stream's last request and its end.
 */
const DRAINING_RETRIES = 3;
const DRAINING_RETRY_MS = 25;

/** The failure a draining provider-proxy answers to a request it did not start (shared with provider-proxy). */
export const PROXY_DRAINING_FAILURE = {
  code: 'service_unavailable',
  detail: 'the provider-proxy is shutting down; retry',
} as const;

const isDrainingRefusal = (failure: { code: string; detail: string }): boolean =>
  failure.code === PROXY_DRAINING_FAILURE.code && failure.detail === PROXY_DRAINING_FAILURE.detail;
const TIMEOUT = { code: 'platform_timeout', detail: 'the platform did not answer in time' };

/** Messages a lane's stream holds that the transport has not taken yet. */
const backlog = (lane: Lane): number => lane.stream?.writableLength ?? 0;

/**
 * Multiplexes requests over a few long-lived Exchange streams (docs/benchmarks.md: ~5-6x the throughput of one unary
 * call per request). Frames are correlated by id; a small answer comes as one whole frame; each request has its own
 * deadline; a broken stream fails only its own requests and is reopened by the next call (requests no replica started
 * go again, see DRAINING_RETRIES and CONNECT_BUDGET_MS); a lane whose writes back up is avoided until it drains.
 * The frames of one event-loop turn go out as one message per lane: one write instead of one per request.
 */
export class StreamProviderCaller implements ProviderCaller {
  private readonly client: ProviderProxyClient;
  private readonly lanes: Lane[];
  private readonly inFlight = new IdTable<InFlight>();
  private readonly ids = new IndexIds();
  private nextLane = 0;
  private turnLane: Lane | undefined;
  private closed = false;
  private readonly connectBudgetMs: number;
  /** A request costs no timer of its own. */
  private readonly deadlines = new EarliestDeadline((nowMs) => this.expireDue(nowMs));

  constructor(address: string, options: { streams?: number; connectBudgetMs?: number } = {}) {
    this.client = createRawProviderProxyClient(address);
    this.connectBudgetMs = options.connectBudgetMs ?? CONNECT_BUDGET_MS;
    this.lanes = Array.from({ length: Math.max(1, options.streams ?? 2) }, () => ({
      stream: null,
      reached: false,
      congested: false,
      inFlight: 0,
      queued: [],
      flushScheduled: false,
    }));
  }

  call(request: FetchRequest, sink: ResponseSink): ProviderCall {
    if (this.closed) {
      sink.onEnd(UNREACHABLE);
      return { cancel: () => undefined, credit: () => undefined };
    }
    const handle = { id: '', cancelled: false };
    this.dispatch(request, sink, handle, Date.now() + (request.timeout_ms || 30_000) + 1_000, 0);
    return {
      cancel: () => {
        handle.cancelled = true;
        this.cancel(handle.id);
      },
      credit: (bytes) => this.credit(handle.id, bytes),
    };
  }

  private dispatch(
    request: FetchRequest,
    sink: ResponseSink,
    handle: InFlight['handle'],
    deadline: number,
    attempt: number,
  ): void {
    if (this.closed) {
      sink.onEnd(UNREACHABLE);
      return;
    }
    const id = this.ids.take();
    handle.id = id;
    const lane = this.pickLane();
    this.open(lane);
    const entry: InFlight = { sink, lane, request, handle, deadline, attempt, headSeen: false };
    this.inFlight.set(id, entry);
    this.deadlines.add(deadline);
    lane.inFlight++;
    // Not `{ ...request, correlation_id: id }`: on Node 20 a spread followed by a field the source lacks gives each
    // object a hidden class of its own, freed only by a full collection (docs/benchmarks.md, "edge-auth's collector").
    this.send(lane, { request: Object.assign({}, request, { correlation_id: id }) });
  }

  close(): void {
    this.closed = true;
    this.deadlines.stop();
    for (const lane of this.lanes) {
      lane.queued = [];
      lane.stream?.end();
    }
    for (const id of this.inFlight.ids()) this.finish(id, UNREACHABLE);
    this.client.close();
  }

  get pending(): number {
    return this.inFlight.size;
  }

  /**
   * The lane of this event-loop turn: every call of one turn rides the same lane, so a turn costs one message; the
   * next turn takes the next lane that is not backed up (lanes may reach different proxy replicas). When every lane
   * is backed up (a busy or slow host backs up the healthy lanes too), the turn takes the lane with the fewest
   * messages waiting, so a lane that stopped reading does not get its round-robin share of turns back.
   */
  private pickLane(): Lane {
    // The turn keeps its lane even when that lane is backed up: picking again per call would split the turn into
    // one message per lane and spread its calls over every lane, the stalled ones included.
    if (this.turnLane) return this.turnLane;
    let picked = this.nextLane;
    for (let i = 0; i < this.lanes.length; i++) {
      const index = (this.nextLane + i) % this.lanes.length;
      const candidate = this.lanes[index]!;
      if (!candidate.congested) {
        picked = index;
        break;
      }
      if (backlog(candidate) < backlog(this.lanes[picked]!)) picked = index;
    }
    this.nextLane = (picked + 1) % this.lanes.length;
    this.turnLane = this.lanes[picked]!;
    return this.turnLane;
  }

  private send(lane: Lane, frame: ClientFrame): void {
    lane.queued.push(frame);
    if (lane.flushScheduled) return;
    lane.flushScheduled = true;
    setImmediate(() => this.flush(lane));
  }

  private flush(lane: Lane): void {
    lane.flushScheduled = false;
    if (this.turnLane === lane) this.turnLane = undefined;
    if (!lane.stream || lane.queued.length === 0) return;
    const frames = lane.queued;
    lane.queued = [];
    if (!lane.stream.write({ frames })) lane.congested = true;
  }

  private open(lane: Lane): ExchangeStream {
    if (lane.stream) return lane.stream;
    const stream = this.client.exchange(new Metadata({ waitForReady: true }));
    lane.stream = stream;
    lane.reached = false;
    lane.congested = false;
    let givenUp = false;
    const connectTimer = setTimeout(() => {
      givenUp = true;
      stream.cancel();
    }, this.connectBudgetMs).unref();
    stream.on('metadata', () => {
      clearTimeout(connectTimer);
      if (lane.stream === stream) lane.reached = true;
    });
    stream.on('data', (message: ServerFrames__Output) => {
      for (const frame of message.frames) this.onFrame(frame);
    });
    stream.on('drain', () => (lane.congested = false));
    // grpc-js emits 'error' (a non-OK status) before 'end'; an 'end' without it is the server's own clean end.
    let failed = false;
    const broken = (cleanEnd: boolean) => {
      clearTimeout(connectTimer);
      if (lane.stream !== stream) return;
      const reached = lane.reached;
      lane.stream = null;
      lane.reached = false;
      // Queued frames belong to the broken stream's requests; a reopened stream must not get them.
      lane.queued = [];
      for (const id of this.inFlight.ids()) {
        const entry = this.inFlight.get(id);
        if (entry?.lane !== lane) continue;
        // A replica ends a stream cleanly only once it has nothing in flight (a draining provider-proxy), and sends
        // its headers before it reads a request: a request still waiting here after a clean end, or on a stream
        // that broke before any headers, was never started, so it goes again. After headers and an error it may
        // have reached the platform: it fails.
        const neverStarted = cleanEnd || (!reached && !givenUp);
        if (neverStarted && !entry.headSeen && entry.attempt < DRAINING_RETRIES) this.retry(id, entry);
        else this.finish(id, reached || cleanEnd ? UNREACHABLE : NO_REPLICA);
      }
    };
    stream.on('error', () => {
      failed = true;
      broken(false);
    });
    stream.on('end', () => broken(!failed));
    stream.on('close', () => broken(false));
    return stream;
  }

  private onFrame(frame: ServerFrame__Output): void {
    const entry = this.inFlight.get(frame.correlation_id);
    if (!entry) return; // cancelled or expired
    switch (frame.kind) {
      case 'head':
        entry.headSeen = true;
        entry.sink.onHead({
          status: frame.head!.status,
          contentType: frame.head!.content_type,
          headers: frame.head!.headers,
        });
        break;
      case 'chunk':
        entry.sink.onChunk(frame.chunk!);
        break;
      case 'end': {
        const failure = frame.end?.failure?.code ? frame.end.failure : undefined;
        if (failure && !entry.headSeen && isDrainingRefusal(failure) && entry.attempt < DRAINING_RETRIES) {
          this.retry(frame.correlation_id, entry);
          break;
        }
        this.finish(frame.correlation_id, failure);
        break;
      }
      case 'whole': {
        const { head, body } = frame.whole!;
        this.forget(frame.correlation_id, entry);
        deliverWhole(
          entry.sink,
          { status: head!.status, contentType: head!.content_type, headers: head!.headers },
          body,
        );
        break;
      }
    }
  }

  /** Sends a request a draining replica refused once more, on whichever lane the next turn takes. */
  private retry(id: string, entry: InFlight): void {
    this.forget(id, entry);
    // The refusing stream ends once its last request is done; until then it must not take this one again.
    if (entry.lane.inFlight === 0) this.retire(entry.lane);
    setTimeout(
      () => {
        if (entry.handle.cancelled) return;
        this.dispatch(entry.request, entry.sink, entry.handle, entry.deadline, entry.attempt + 1);
      },
      DRAINING_RETRY_MS * 2 ** entry.attempt,
    );
  }

  /** Forgets a lane's stream without failing anything (it has no request left); the next call opens a new one. */
  private retire(lane: Lane): void {
    const stream = lane.stream;
    if (!stream) return;
    lane.stream = null;
    lane.queued = [];
    stream.end();
  }

  /** Fails the requests whose deadline passed; the earliest deadline still in flight, or Infinity. */
  private expireDue(nowMs: number): number {
    return expireDueIn(this.inFlight, nowMs, (id) => this.expire(id));
  }

  private expire(id: string): void {
    const entry = this.inFlight.get(id);
    if (!entry) return;
    if (entry.lane.stream) this.send(entry.lane, { cancel: { correlation_id: id } });
    // A request whose stream no replica took yet never reached the platform: it did not time out there.
    this.finish(id, entry.lane.reached ? TIMEOUT : NO_REPLICA);
  }

  private credit(id: string, bytes: number): void {
    const entry = this.inFlight.get(id);
    if (entry?.lane.stream && bytes > 0) this.send(entry.lane, { credit: { correlation_id: id, bytes } });
  }

  private cancel(id: string): void {
    const entry = this.inFlight.get(id);
    if (!entry) return;
    if (entry.lane.stream) this.send(entry.lane, { cancel: { correlation_id: id } });
    this.forget(id, entry);
  }

  private finish(id: string, failure?: { code: string; detail: string }): void {
    const entry = this.inFlight.get(id);
    if (!entry) return;
    this.forget(id, entry);
    entry.sink.onEnd(failure);
  }

  private forget(id: string, entry: InFlight): void {
    entry.lane.inFlight--;
    this.inFlight.delete(id);
  }
}
