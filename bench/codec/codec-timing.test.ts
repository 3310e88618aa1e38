import { providerProxyService } from '@gateway/proto';
import { requestCodec, responseCodec, timeCodecs, type ExchangeSerializers, type FrameCodec } from './codec-timing';
import { clientMessages, serverMessages } from './frames';

const exchange = providerProxyService().Exchange as unknown as ExchangeSerializers;
const requests = requestCodec(exchange);
const responses = responseCodec(exchange);

describe('the codec bench', () => {
  it('builds the messages the services send: requests of one to four frames with credits, whole answers', () => {
    const decoded = clientMessages(6).map((message) => requests.decode(requests.encode(message))) as Array<{
      frames: Array<{ kind: string; request: { path: string; query: string; correlation_id: string } | null }>;
    }>;
    expect(decoded.map((message) => message.frames.map((frame) => frame.kind).join())).toEqual([
      'request,credit',
      'request,request',
      'request,request,request',
      'request,request,request,request,credit',
      'request',
      'request,request',
    ]);
    expect(decoded[1]!.frames[1]!.request).toMatchObject({
      path: '/v1.3/report/integrated/get/',
      query: 'advertiser_id=7000002&page=2',
      correlation_id: '9',
    });
    const answers = serverMessages(2).map((message) => responses.decode(responses.encode(message))) as Array<{
      frames: Array<{ kind: string; whole: { body: Buffer; head: { status: number } } }>;
    }>;
    expect(answers.map((message) => message.frames.length)).toEqual([1, 2]);
    expect(answers[1]!.frames[1]!.whole.head.status).toBe(200);
    expect(answers[1]!.frames[1]!.whole.body.length).toBe(846);
  });

  it('times every codec in every round, per frame', () => {
    let encoded = 0;
    const counting: FrameCodec = {
      encode: (message) => {
        encoded++;
        return requests.encode(message);
      },
      decode: requests.decode,
    };
    const messages = clientMessages(8);
    const frames = messages.reduce((sum, message) => sum + message.frames!.length, 0);
    const timed = timeCodecs({ counting, plain: requests }, messages, { rounds: 3, passes: 2 });
    // Once to compare the encoded lengths, then passes x rounds.
    expect(encoded).toBe(8 + 8 * 2 * 3);
    // Requests 1+2+3+4+1+2+3+4, and a credit in messages 0, 3 and 6.
    expect(frames).toBe(20 + 3);
    for (const rounds of Object.values(timed)) {
      expect(rounds.encodeNs).toHaveLength(3);
      expect(rounds.decodeNs).toHaveLength(3);
      for (const ns of [...rounds.encodeNs, ...rounds.decodeNs]) expect(ns).toBeGreaterThanOrEqual(0);
    }
  });

  it('refuses codecs that do not encode the same messages to the same lengths', () => {
    const short: FrameCodec = { encode: (message) => requests.encode(message).subarray(1), decode: requests.decode };
    expect(() => timeCodecs({ requests, short }, clientMessages(2), { rounds: 1, passes: 1 })).toThrow(
      'short and requests encode to different lengths',
    );
  });

  it('refuses to time no frames', () => {
    expect(() => timeCodecs({ requests }, [{ frames: [] }], { rounds: 1, passes: 1 })).toThrow('no frames to time');
  });
});
