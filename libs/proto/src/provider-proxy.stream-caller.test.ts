import { EventEmitter, once } from 'node:events';
import { freePort } from '@gateway/testing';
import {
  Metadata,
  Server,
  ServerCredentials,
  status,
  type ClientDuplexStream,
  type ServerDuplexStream,
} from '@grpc/grpc-js';
import type { ClientFrame, ClientFrame__Output } from './generated/gateway/provider/v1/ClientFrame';
import type { ClientFrames, ClientFrames__Output } from './generated/gateway/provider/v1/ClientFrames';
import type { ProviderProxyHandlers } from './generated/gateway/provider/v1/ProviderProxy';
import type { ServerFrame } from './generated/gateway/provider/v1/ServerFrame';
import type { ServerFrames, ServerFrames__Output } from './generated/gateway/provider/v1/ServerFrames';
import { callBuffered, type BufferedAnswer, type ResponseSink } from './provider-caller';
import * as contract from './provider-proxy.contract';
import { PROXY_DRAINING_FAILURE, StreamProviderCaller } from './provider-proxy.stream-caller';

type ExchangeCall = ServerDuplexStream<ClientFrames__Output, ServerFrames>;
/** The caller's side of one lane's Exchange stream. */
type LaneStream = ClientDuplexStream<ClientFrames, ServerFrames__Output>;

/** One ClientFrames message the caller wrote, the lane it went on, and whether the stream took it without backing up. */
interface Written {
  stream: LaneStream;
  frames: ClientFrame[];
  accepted: boolean;
}

const createClient = contract.createRawProviderProxyClient;

const head = { status: 200, content_type: 'application/json', headers: {} };

/** Answers every request of a message with one whole frame echoing its query, all in one message. */
function echoAll(call: ExchangeCall, frames: ClientFrame__Output[]): void {
  const answers: ServerFrame[] = frames
    .filter((frame) => frame.request)
    .map(({ request }) => ({
      correlation_id: request!.correlation_id,
      whole: { head, body: Buffer.from(request!.query) },
    }));
  if (answers.length > 0) call.write({ frames: answers });
}

const queriesOf = (message: Written) => message.frames.map((frame) => frame.request?.query);

/** A real gRPC server on loopback that records the frames of every ClientFrames message, per stream. */
describe('StreamProviderCaller', () => {
  let server: Server;
  let address: string;
  let streams: ClientFrame__Output[][][];
  let onMessage: (call: ExchangeCall, frames: ClientFrame__Output[]) => void;
  const callers: StreamProviderCaller[] = [];
  /** Every message the callers wrote, in order; `wrote` fires after each. */
  let written: Written[];
  const wrote = new EventEmitter();
  /**
   * How many of the next Exchange streams the server leaves unread: it takes nothing from them, so once their HTTP/2
   * window and grpc-js's retry buffer are full the caller's writes on that lane back up and stay backed up.
   */
  let leaveUnread: number;
  const unread = new Set<ExchangeCall>();
  const exchanges = new EventEmitter();
  /** How many of the next Exchange streams the server fails before its headers, as a replica that never took them. */
  let failBeforeHeaders: number;

  function read(call: ExchangeCall): void {
    const messages: ClientFrame__Output[][] = [];
    streams.push(messages);
    call.on('data', (message: ClientFrames__Output) => {
      messages.push(message.frames);
      onMessage(call, message.frames);
    });
    call.on('end', () => call.end());
  }

  beforeAll(async () => {
    server = new Server();
    const handlers: ProviderProxyHandlers = {
      Fetch: (_call, callback) => callback({ code: status.UNIMPLEMENTED }),
      Exchange: (call: ExchangeCall) => {
        if (failBeforeHeaders > 0) {
          failBeforeHeaders -= 1;
          call.emit('error', { code: status.UNAVAILABLE, details: 'the stream never reached a replica' });
          return;
        }
        // As provider-proxy does: the headers go out before any request is read.
        call.sendMetadata(new Metadata());
        if (leaveUnread > 0) {
          leaveUnread -= 1;
          unread.add(call);
        } else read(call);
        exchanges.emit('exchange', call);
      },
    };
    server.addService(contract.providerProxyService(), handlers);
    const port = await new Promise<number>((resolve, reject) =>
      server.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (error, bound) =>
        error ? reject(error) : resolve(bound),
      ),
    );
    address = `127.0.0.1:${port}`;
  });

  beforeEach(() => {
    streams = [];
    onMessage = echoAll;
    written = [];
    leaveUnread = 0;
    failBeforeHeaders = 0;
    // Watch the caller where it meets the transport: which lane's stream it writes each message on, and whether the
    // stream took the write without backing up (write() returned true).
    jest.spyOn(contract, 'createRawProviderProxyClient').mockImplementation((target) => {
      const client = createClient(target);
      const exchange = client.exchange.bind(client) as (metadata?: Metadata) => LaneStream;
      client.exchange = ((metadata?: Metadata) => {
        const stream = exchange(metadata);
        const write = stream.write.bind(stream) as (message: ClientFrames) => boolean;
        stream.write = ((message: ClientFrames) => {
          const accepted = write(message);
          written.push({ stream, frames: message.frames ?? [], accepted });
          wrote.emit('write');
          return accepted;
        }) as LaneStream['write'];
        return stream;
      }) as typeof client.exchange;
      return client;
    });
  });

  afterEach(() => {
    for (const caller of callers.splice(0)) caller.close();
    for (const call of unread) call.end();
    unread.clear();
    jest.restoreAllMocks();
  });

  afterAll(() => server.forceShutdown());

  function newCaller(lanes: number, options: { target?: string; connectBudgetMs?: number } = {}): StreamProviderCaller {
    const caller = new StreamProviderCaller(options.target ?? address, { streams: lanes, ...options });
    callers.push(caller);
    return caller;
  }

  const request = (query: string) => ({ provider: 'video-ads', account_id: 'acc', path: '/v1.3/campaign/get/', query });

  /** Resolves with the n-th message (from 0) the callers write, once it is written. */
  function nthWrite(n: number): Promise<Written> {
    return new Promise((resolve) => {
      const check = () => {
        const message = written[n];
        if (!message) return;
        wrote.off('write', check);
        resolve(message);
      };
      wrote.on('write', check);
      check();
    });
  }

  const payload = 'x'.repeat(128 * 1024);

  /**
   * Drives a caller one event-loop turn at a time, waiting for each turn's message to be written. A turn on a lane the
   * server reads waits for its answers too, so such a lane never backs up; on an unread lane they stay pending.
   */
  function driver(caller: StreamProviderCaller) {
    const serverSide = new Map<LaneStream, ExchangeCall>();
    const pendingOn = new Map<LaneStream, Promise<BufferedAnswer>[]>();
    const drive = {
      /** Makes the calls of one turn; resolves with the (first) message the turn was written as. */
      async turn(queries: string[]): Promise<Written> {
        const n = written.length;
        const answers = queries.map((query) => callBuffered(caller, request(query)));
        const message = await nthWrite(n);
        if (serverSide.has(message.stream)) pendingOn.get(message.stream)!.push(...answers);
        else await Promise.all(answers);
        return message;
      },
      /** A turn that opens a new lane, on a server stream that is left unread; returns the lane's stream. */
      async stallNewLane(): Promise<LaneStream> {
        const known = new Set(written.map((message) => message.stream));
        leaveUnread = 1;
        const exchange = once(exchanges, 'exchange') as Promise<[ExchangeCall]>;
        const n = written.length;
        const answer = callBuffered(caller, request('stall'));
        const { stream } = await nthWrite(n);
        if (known.has(stream)) throw new Error('the turn went to a lane that was already open');
        const [call] = await exchange;
        serverSide.set(stream, call);
        pendingOn.set(stream, [answer]);
        return stream;
      },
      /** Turns of two large calls until a write on the unread `lane` is refused (its stream backs up). */
      async fillUntilBackedUp(lane: LaneStream): Promise<void> {
        for (let i = 0; i < 200; i++) {
          const message = await drive.turn([`fill&${payload}`, `fill&${payload}`]);
          if (message.stream === lane && !message.accepted) return;
        }
        throw new Error('the lane never backed up');
      },
      /** The server reads the unread `lane`; resolves once the lane has drained and its calls are answered. */
      async release(lane: LaneStream): Promise<BufferedAnswer[]> {
        const call = serverSide.get(lane)!;
        serverSide.delete(lane);
        unread.delete(call);
        const drained = lane.writableNeedDrain ? once(lane, 'drain') : Promise.resolve();
        read(call);
        await drained;
        return Promise.all(pendingOn.get(lane)!);
      },
      /** The server breaks the unread `lane`'s stream; resolves with the answers of its calls once they have failed. */
      async breakLane(lane: LaneStream): Promise<BufferedAnswer[]> {
        const call = serverSide.get(lane)!;
        serverSide.delete(lane);
        unread.delete(call);
        // An error, not an end: a replica that ends a stream cleanly has started none of its requests, which the
        // caller then sends again; after an error they may have reached the platform and fail.
        call.emit('error', { code: status.UNAVAILABLE, details: 'the replica went away' });
        return Promise.all(pendingOn.get(lane)!);
      },
    };
    return drive;
  }

  it('sends the calls of one event-loop turn as one ClientFrames message carrying every request', async () => {
    const caller = newCaller(1);
    const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => callBuffered(caller, request(`n=${i}`))));
    expect(answers.map((answer) => answer.body.toString())).toEqual(Array.from({ length: 8 }, (_, i) => `n=${i}`));
    expect(streams).toHaveLength(1);
    expect(streams[0]).toHaveLength(1);
    expect(streams[0]![0]!.map((frame) => frame.request?.query)).toEqual(Array.from({ length: 8 }, (_, i) => `n=${i}`));
  });

  it('puts every call of one turn on one lane, and the next turn on the next lane', async () => {
    const caller = newCaller(2);
    await Promise.all(Array.from({ length: 6 }, (_, i) => callBuffered(caller, request(`first=${i}`))));
    expect(streams).toHaveLength(1);
    expect(streams[0]).toHaveLength(1);
    await Promise.all(Array.from({ length: 6 }, (_, i) => callBuffered(caller, request(`second=${i}`))));
    expect(streams).toHaveLength(2);
    expect(streams[1]!.map((frames) => frames.length)).toEqual([6]);
  });

  it('sends the calls of later turns in later messages on the same stream', async () => {
    const caller = newCaller(1);
    await callBuffered(caller, request('first'));
    await callBuffered(caller, request('second'));
    expect(streams).toHaveLength(1);
    expect(streams[0]!.map((frames) => frames.map((frame) => frame.request?.query))).toEqual([['first'], ['second']]);
  });

  it('dispatches each frame of one ServerFrames message to its own request', async () => {
    onMessage = (call, frames) => {
      const [a, b] = frames.map((frame) => frame.request!.correlation_id);
      call.write({
        frames: [
          { correlation_id: a, head },
          { correlation_id: b, whole: { head, body: Buffer.from('b') } },
          { correlation_id: a, chunk: Buffer.from('a1') },
          { correlation_id: a, chunk: Buffer.from('a2') },
          { correlation_id: a, end: { failure: null } },
        ],
      });
    };
    const caller = newCaller(1);
    const [a, b] = await Promise.all([callBuffered(caller, request('a')), callBuffered(caller, request('b'))]);
    expect(a.body.toString()).toBe('a1a2');
    expect(a.failure).toBeUndefined();
    expect(b.body.toString()).toBe('b');
  });

  it('sends a cancel in the batch of its turn and still delivers the answers of the other requests', async () => {
    const caller = newCaller(1);
    const cancelledGot: string[] = [];
    const cancelledSink: ResponseSink = {
      onHead: () => cancelledGot.push('head'),
      onChunk: () => cancelledGot.push('chunk'),
      onEnd: () => cancelledGot.push('end'),
      onWhole: () => cancelledGot.push('whole'),
    };
    const first = callBuffered(caller, request('kept-1'));
    caller.call(request('cancelled'), cancelledSink).cancel();
    const last = callBuffered(caller, request('kept-2'));
    expect((await first).body.toString()).toBe('kept-1');
    expect((await last).body.toString()).toBe('kept-2');
    const [batch] = streams[0]!;
    expect(batch!.map((frame) => frame.kind)).toEqual(['request', 'request', 'cancel', 'request']);
    expect(batch![2]!.cancel!.correlation_id).toBe(batch![1]!.request!.correlation_id);
    expect(cancelledGot).toEqual([]);
    expect(caller.pending).toBe(0);
  });

  it('fails the requests of a lane whose stream breaks and reopens the lane for the next call', async () => {
    onMessage = (call) => call.emit('error', { code: status.UNAVAILABLE, details: 'the replica went away' });
    const caller = newCaller(1);
    const broken = await Promise.all(Array.from({ length: 3 }, (_, i) => callBuffered(caller, request(`n=${i}`))));
    for (const answer of broken) expect(answer.failure?.code).toBe('service_unavailable');
    onMessage = echoAll;
    expect((await callBuffered(caller, request('again'))).body.toString()).toBe('again');
    expect(streams).toHaveLength(2);
  });

  it('sends a request a draining replica refused again on a fresh stream, and delivers the answer', async () => {
    let refusals = 1;
    onMessage = (call, frames) => {
      if (refusals === 0) return echoAll(call, frames);
      refusals -= 1;
      const refused = frames.filter((frame) => frame.request);
      call.write({
        frames: refused.map(({ request: r }) => ({
          correlation_id: r!.correlation_id,
          end: { failure: PROXY_DRAINING_FAILURE },
        })),
      });
      // A draining replica ends the stream once it has nothing in flight.
      call.end();
    };
    const caller = newCaller(1);

    const answer = await callBuffered(caller, request('after-drain'));

    expect(answer.failure).toBeUndefined();
    expect(answer.body.toString()).toBe('after-drain');
    expect(streams).toHaveLength(2);
  });

  it('sends a request again when the replica ended its stream cleanly before starting it (drain race)', async () => {
    let ends = 1;
    onMessage = (call, frames) => {
      if (ends === 0) return echoAll(call, frames);
      ends -= 1;
      // The request crossed the end of a drained stream: the replica ends it without starting the request.
      call.end();
    };
    const caller = newCaller(1);

    const answer = await callBuffered(caller, request('crossed'));

    expect(answer.failure).toBeUndefined();
    expect(answer.body.toString()).toBe('crossed');
  });

  it('sends the requests of a stream that failed before any replica took it again, and delivers their answers', async () => {
    failBeforeHeaders = 2;
    const caller = newCaller(1);

    const answers = await Promise.all(['a', 'b'].map((query) => callBuffered(caller, request(query))));

    expect(answers.map((answer) => answer.failure)).toEqual([undefined, undefined]);
    expect(answers.map((answer) => answer.body.toString())).toEqual(['a', 'b']);
    expect(failBeforeHeaders).toBe(0);
  });

  it('fails a request as unavailable once every try failed before any replica took its stream', async () => {
    failBeforeHeaders = 10;
    const caller = newCaller(1);

    const answer = await callBuffered(caller, request('nowhere'));

    expect(answer.failure).toEqual({
      code: 'service_unavailable',
      detail: 'no provider-proxy replica took the stream',
    });
    // The first try and three more.
    expect(failBeforeHeaders).toBe(6);
  });

  it('waits for a replica when none is listening yet and delivers the answers once one is', async () => {
    const port = await freePort();
    const caller = newCaller(2, { target: `127.0.0.1:${port}` });
    const answers = Promise.all(['early', 'later'].map((query) => callBuffered(caller, request(query))));
    await new Promise((resolve) => setTimeout(resolve, 300));
    const late = await replica(port);
    try {
      const delivered = await answers;
      expect(delivered.map((answer) => answer.failure)).toEqual([undefined, undefined]);
      expect(delivered.map((answer) => answer.body.toString())).toEqual(['early', 'later']);
    } finally {
      await late.stop();
    }
  });

  it('fails the requests as unavailable when no replica took their stream within the connect budget', async () => {
    const caller = newCaller(1, { target: `127.0.0.1:${await freePort()}`, connectBudgetMs: 200 });
    const sent = Date.now();

    const answer = await callBuffered(caller, request('nobody'));

    expect(answer.failure).toEqual({
      code: 'service_unavailable',
      detail: 'no provider-proxy replica took the stream',
    });
    expect(Date.now() - sent).toBeGreaterThanOrEqual(190);
  });

  it('fails each unanswered request at its own deadline, an earlier one sent later too, and tells the replica', async () => {
    const cancelled: string[] = [];
    onMessage = (call, frames) => {
      for (const frame of frames) if (frame.cancel) cancelled.push(frame.cancel.correlation_id);
      echoAll(
        call,
        frames.filter((frame) => frame.request?.query.startsWith('echo')),
      );
    };
    const caller = newCaller(1);
    const sent = Date.now();
    const ended = new Map<string, { failure: BufferedAnswer['failure']; afterMs: number }>();
    const track = (query: string, timeoutMs: number) =>
      callBuffered(caller, { ...request(query), timeout_ms: timeoutMs }).then((answer) =>
        ended.set(query, { failure: answer.failure, afterMs: Date.now() - sent }),
      );
    // Deadlines are timeout_ms plus a second: the later request is due first.
    const long = track('slow-long', 600);
    const short = track('slow-short', 50);
    const echoed = await callBuffered(caller, { ...request('echo'), timeout_ms: 50 });
    await Promise.all([long, short]);

    expect(echoed.failure).toBeUndefined();
    expect(echoed.body.toString()).toBe('echo');
    const timeout = { code: 'platform_timeout', detail: 'the platform did not answer in time' };
    expect(ended.get('slow-short')).toEqual({ failure: timeout, afterMs: expect.any(Number) });
    expect(ended.get('slow-long')).toEqual({ failure: timeout, afterMs: expect.any(Number) });
    expect(ended.get('slow-short')!.afterMs).toBeGreaterThanOrEqual(1_040);
    expect(ended.get('slow-long')!.afterMs).toBeGreaterThanOrEqual(1_590);
    expect(ended.get('slow-short')!.afterMs).toBeLessThan(ended.get('slow-long')!.afterMs);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(cancelled).toHaveLength(2);
    expect(caller.pending).toBe(0);
  });

  it('arms no timer per request: many in flight share one for the earliest deadline', async () => {
    onMessage = (call, frames) => echoAll(call, frames);
    const caller = newCaller(1);
    await callBuffered(caller, request('echo-warm')); // the lane's stream is open
    const timers = jest.spyOn(global, 'setTimeout');
    try {
      const answers = await Promise.all(
        Array.from({ length: 200 }, (_, index) => callBuffered(caller, request(`echo-${index}`))),
      );
      expect(answers.every((answer) => answer.failure === undefined)).toBe(true);
      expect(timers.mock.calls.length).toBeLessThan(10);
    } finally {
      timers.mockRestore();
    }
    expect(caller.pending).toBe(0);
  });

  it('fails a request whose deadline passes before any replica took its stream as unavailable, not as a timeout', async () => {
    const caller = newCaller(1, { target: `127.0.0.1:${await freePort()}`, connectBudgetMs: 60_000 });

    const answer = await callBuffered(caller, { ...request('late'), timeout_ms: 50 });

    expect(answer.failure).toEqual({
      code: 'service_unavailable',
      detail: 'no provider-proxy replica took the stream',
    });
  });

  it("sends a credit on the request's own stream, under the id the request went with, and none once it is over", async () => {
    onMessage = () => undefined;
    const caller = newCaller(2);
    const call = caller.call(request('windowed'), { onHead() {}, onChunk() {}, onEnd() {} });
    const first = await nthWrite(0);

    call.credit(65_536);
    const second = await nthWrite(1);
    call.cancel();
    call.credit(1);
    await new Promise(setImmediate);

    expect(second.stream).toBe(first.stream);
    expect(second.frames).toEqual([
      { credit: { correlation_id: first.frames[0]!.request!.correlation_id, bytes: 65_536 } },
    ]);
    expect(written.map((message) => message.frames.map((frame) => Object.keys(frame)[0]))).toEqual([
      ['request'],
      ['credit'],
      ['cancel'],
    ]);
  });

  it('gives the refusal back once a request was refused by draining replicas on every try', async () => {
    onMessage = (call, frames) => {
      call.write({
        frames: frames
          .filter((frame) => frame.request)
          .map(({ request: r }) => ({ correlation_id: r!.correlation_id, end: { failure: PROXY_DRAINING_FAILURE } })),
      });
    };
    const caller = newCaller(1);

    const answer = await callBuffered(caller, request('never'));

    expect(answer.failure).toEqual(expect.objectContaining(PROXY_DRAINING_FAILURE));
    expect(streams.flat(2).filter((frame) => frame.request)).toHaveLength(4);
  });

  it('fails the calls still queued when the caller closes, without sending them', async () => {
    const caller = newCaller(1);
    const answer = callBuffered(caller, request('queued'));
    caller.close();
    expect((await answer).failure?.code).toBe('service_unavailable');
    // The turn's flush was scheduled before this: once this runs, whatever the flush was going to write is written.
    await new Promise(setImmediate);
    expect(written.map(queriesOf)).toEqual([]);
  });

  it('moves new calls off a lane whose writes back up and back onto it once it drains', async () => {
    const drive = driver(newCaller(2));
    const stalled = await drive.stallNewLane();
    await drive.fillUntilBackedUp(stalled);
    const onOtherLane = written.filter((message) => message.stream !== stalled);
    expect(onOtherLane.length).toBeGreaterThan(0);
    expect(onOtherLane.every((message) => message.accepted)).toBe(true);

    // While the stalled lane stays backed up, every turn takes the other lane, as one message with both calls.
    const whileBackedUp: string[] = [];
    for (let i = 0; i < 10; i++) {
      const message = await drive.turn([`busy${i}`, `busy${i}`]);
      whileBackedUp.push(
        `${message.stream === stalled ? 'stalled' : 'other'} lane: ${queriesOf(message).length} calls`,
      );
    }
    expect(whileBackedUp).toEqual(Array.from({ length: 10 }, () => 'other lane: 2 calls'));

    const answers = await drive.release(stalled);
    expect(answers.length).toBeGreaterThan(1);
    for (const answer of answers) expect(answer.failure).toBeUndefined();
    // Once it has drained it takes turns again: of two turns, one rides each lane.
    const after: string[] = [];
    for (let i = 0; i < 2; i++) {
      const message = await drive.turn([`after${i}`, `after${i}`]);
      after.push(`${message.stream === stalled ? 'drained' : 'other'} lane: ${queriesOf(message).length} calls`);
    }
    expect(after.sort()).toEqual(['drained lane: 2 calls', 'other lane: 2 calls']);
  }, 30_000);

  it('keeps every call of one turn on one lane when every lane is backed up', async () => {
    const drive = driver(newCaller(2));
    const first = await drive.stallNewLane();
    const second = await drive.stallNewLane();
    await drive.fillUntilBackedUp(first);
    await drive.fillUntilBackedUp(second);

    const message = await drive.turn(['one', 'two', 'three']);
    expect(queriesOf(message)).toEqual(['one', 'two', 'three']);
  }, 30_000);

  it('gives the turn to the least backed-up lane when every lane is backed up', async () => {
    const drive = driver(newCaller(2));
    const first = await drive.stallNewLane();
    const second = await drive.stallNewLane();
    await drive.fillUntilBackedUp(first);
    await drive.fillUntilBackedUp(second);
    // One more large turn while both are backed up: that lane now has more messages waiting than the other.
    const longer = (await drive.turn([`extra&${payload}`, `extra&${payload}`, `extra&${payload}`])).stream;
    const shorter = longer === first ? second : first;
    // The other lane's stream breaks; the next call reopens that lane on a stream that is not read either, and it
    // backs up again, with fewer messages waiting than the longer lane.
    for (const answer of await drive.breakLane(shorter)) expect(answer.failure?.code).toBe('service_unavailable');
    const reopened = await drive.stallNewLane();
    await drive.fillUntilBackedUp(reopened);
    expect(longer.writableLength).toBeGreaterThan(reopened.writableLength);

    const message = await drive.turn(['next', 'next']);
    expect(message.stream === reopened ? 'less backed-up lane' : 'more backed-up lane').toBe('less backed-up lane');
    expect(queriesOf(message)).toHaveLength(2);
  }, 30_000);
});

/**
 * A replica on `port` that behaves as provider-proxy does at its edges: headers first, each request answered with its
 * own query 10 ms later; `stop()` drains (refuses new requests, ends each stream once idle) and shuts down, closing
 * whatever is left after a grace period.
 */
async function replica(port: number): Promise<{ stop(): Promise<void> }> {
  const server = new Server();
  const drains = new Set<() => void>();
  let draining = false;
  const handlers: ProviderProxyHandlers = {
    Fetch: (_call, callback) => callback({ code: status.UNIMPLEMENTED }),
    Exchange: (call: ExchangeCall) => {
      call.sendMetadata(new Metadata());
      let inFlight = 0;
      let clientDone = false;
      let ended = false;
      const endIfIdle = () => {
        if (ended || inFlight > 0 || !(clientDone || draining)) return;
        ended = true;
        call.end();
      };
      drains.add(endIfIdle);
      endIfIdle();
      call.on('data', (message: ClientFrames__Output) => {
        for (const { request: r } of message.frames) {
          if (!r) continue;
          if (draining) {
            call.write({ frames: [{ correlation_id: r.correlation_id, end: { failure: PROXY_DRAINING_FAILURE } }] });
            continue;
          }
          inFlight += 1;
          setTimeout(() => {
            inFlight -= 1;
            call.write({ frames: [{ correlation_id: r.correlation_id, whole: { head, body: Buffer.from(r.query) } }] });
            endIfIdle();
          }, 10);
        }
      });
      call.on('end', () => {
        clientDone = true;
        endIfIdle();
      });
      call.on('error', () => (ended = true));
    },
  };
  server.addService(contract.providerProxyService(), handlers);
  await new Promise<number>((resolve, reject) =>
    server.bindAsync(`127.0.0.1:${port}`, ServerCredentials.createInsecure(), (error, bound) =>
      error ? reject(error) : resolve(bound),
    ),
  );
  let stopped: Promise<void> | undefined;
  return {
    stop: () =>
      (stopped ??= new Promise<void>((resolve) => {
        draining = true;
        for (const drain of drains) drain();
        server.tryShutdown(() => resolve());
        // provider-proxy's grace period, shortened.
        setTimeout(() => {
          server.forceShutdown();
          resolve();
        }, 1_000).unref();
      })),
  };
}
