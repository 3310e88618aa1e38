import { Server, ServerCredentials, status, type ServerDuplexStream } from '@grpc/grpc-js';
import type { ClientFrame__Output } from './generated/gateway/provider/v1/ClientFrame';
import type { ClientFrames__Output } from './generated/gateway/provider/v1/ClientFrames';
import type { ProviderProxyHandlers } from './generated/gateway/provider/v1/ProviderProxy';
import type { ServerFrame } from './generated/gateway/provider/v1/ServerFrame';
import type { ServerFrames } from './generated/gateway/provider/v1/ServerFrames';
import { callBuffered, type ResponseSink } from './provider-caller';
import { providerProxyService } from './provider-proxy.contract';
import { StreamProviderCaller } from './provider-proxy.stream-caller';

type ExchangeCall = ServerDuplexStream<ClientFrames__Output, ServerFrames>;

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

/** A real gRPC server on loopback that records the frames of every ClientFrames message, per stream. */
describe('StreamProviderCaller', () => {
  let server: Server;
  let address: string;
  let streams: ClientFrame__Output[][][];
  let onMessage: (call: ExchangeCall, frames: ClientFrame__Output[]) => void;
  const callers: StreamProviderCaller[] = [];

  beforeAll(async () => {
    server = new Server();
    const handlers: ProviderProxyHandlers = {
      Fetch: (_call, callback) => callback({ code: status.UNIMPLEMENTED }),
      Exchange: (call: ExchangeCall) => {
        const messages: ClientFrame__Output[][] = [];
        streams.push(messages);
        call.on('data', (message: ClientFrames__Output) => {
          messages.push(message.frames);
          onMessage(call, message.frames);
        });
        call.on('end', () => call.end());
      },
    };
    server.addService(providerProxyService(), handlers);
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
  });

  afterEach(() => {
    for (const caller of callers.splice(0)) caller.close();
  });

  afterAll(() => server.forceShutdown());

  function newCaller(lanes: number): StreamProviderCaller {
    const caller = new StreamProviderCaller(address, { streams: lanes });
    callers.push(caller);
    return caller;
  }

  const request = (query: string) => ({ provider: 'video-ads', account_id: 'acc', path: '/v1.3/campaign/get/', query });

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
    onMessage = (call) => call.end();
    const caller = newCaller(1);
    const broken = await Promise.all(Array.from({ length: 3 }, (_, i) => callBuffered(caller, request(`n=${i}`))));
    for (const answer of broken) expect(answer.failure?.code).toBe('service_unavailable');
    onMessage = echoAll;
    expect((await callBuffered(caller, request('again'))).body.toString()).toBe('again');
    expect(streams).toHaveLength(2);
  });

  it('fails the calls still queued when the caller closes, without sending them', async () => {
    const caller = newCaller(1);
    const answer = callBuffered(caller, request('queued'));
    caller.close();
    expect((await answer).failure?.code).toBe('service_unavailable');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(streams.flat(2)).toEqual([]);
  });

  it('moves new calls off a lane whose writes back up and back onto it once it drains', async () => {
    let stalled: ExchangeCall | undefined;
    let held: ClientFrame__Output[] | null = [];
    onMessage = (call, frames) => {
      // The stream of the first call stops reading: its HTTP/2 window fills and the caller's writes back up.
      if (!stalled) {
        stalled = call;
        call.pause();
      }
      if (call === stalled && held) held.push(...frames);
      else echoAll(call, frames);
    };
    const caller = newCaller(2);
    const pending = [callBuffered(caller, request('stall'))];
    await new Promise((resolve) => setTimeout(resolve, 20));
    const payload = 'x'.repeat(128 * 1024);
    const requestsOn = (messages: ClientFrame__Output[][]) => messages.flat().filter((frame) => frame.request).length;
    const healthyRequests = () =>
      requestsOn(streams.find((messages) => !messages.flat().some((frame) => frame.request?.query === 'stall')) ?? []);
    // The lanes take turns; once the stalled lane backs up, every turn goes to the other.
    let turn = 0;
    while (turn < 200 && healthyRequests() < turn + 10) {
      pending.push(
        callBuffered(caller, request(`a${turn}&${payload}`)),
        callBuffered(caller, request(`b${turn}&${payload}`)),
      );
      turn += 1;
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    expect(healthyRequests()).toBeGreaterThanOrEqual(turn + 10);

    const release = held!;
    held = null;
    echoAll(stalled!, release);
    stalled!.resume();
    await Promise.all(pending);
    const before = streams.map(requestsOn);
    // Two turns of two calls: each turn rides one lane, and the drained lane takes its turn again.
    for (let turnAfter = 0; turnAfter < 2; turnAfter++) {
      await Promise.all(Array.from({ length: 2 }, (_, i) => callBuffered(caller, request(`after${turnAfter}.${i}`))));
    }
    expect(streams.map((messages, i) => requestsOn(messages) - before[i]!)).toEqual([2, 2]);
  }, 30_000);
});
