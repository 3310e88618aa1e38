import type { FetchRequest } from './generated/gateway/provider/v1/FetchRequest';
import { callBuffered, type ProviderCaller, type ResponseSink } from './provider-caller';

const HEAD = { status: 200, contentType: 'application/json', headers: {} };

/** Answers every call with `chunks` (or one onWhole body), a turn apart, and records what the caller asked. */
class ScriptedCaller implements ProviderCaller {
  readonly requests: FetchRequest[] = [];
  cancels = 0;
  delivered = 0;
  constructor(private readonly answer: { chunks?: string[]; whole?: string }) {}
  call(request: FetchRequest, sink: ResponseSink) {
    this.requests.push(request);
    let cancelled = false;
    void (async () => {
      await new Promise((resolve) => setImmediate(resolve));
      if (this.answer.whole !== undefined) return sink.onWhole!(HEAD, Buffer.from(this.answer.whole));
      sink.onHead(HEAD);
      for (const chunk of this.answer.chunks ?? []) {
        if (cancelled) return sink.onEnd({ code: 'cancelled', detail: 'cancelled by the caller' });
        this.delivered += 1;
        sink.onChunk(Buffer.from(chunk));
        await new Promise((resolve) => setImmediate(resolve));
      }
      sink.onEnd();
    })();
    return {
      cancel: () => {
        cancelled = true;
        this.cancels += 1;
      },
      credit: () => undefined,
    };
  }
  close() {}
}

const request: FetchRequest = { request_id: 'req_1', provider: 'video-ads', path: '/v1.3/campaign/get/' };

describe('callBuffered', () => {
  it('collects the whole answer without a limit and asks for no window', async () => {
    const caller = new ScriptedCaller({ chunks: ['{"a":', '1}'] });
    const answer = await callBuffered(caller, request);
    expect(answer.body.toString()).toBe('{"a":1}');
    expect(answer.cut).toBeUndefined();
    expect(caller.requests[0]!.window_bytes).toBeUndefined();
  });

  it('keeps the first maxBytes of a longer answer, cancels the call there and asks for a window of one byte more', async () => {
    const caller = new ScriptedCaller({ chunks: ['0123456789', 'abcdefghij', 'klmnopqrst', 'uvwxyz'] });
    const answer = await callBuffered(caller, request, { maxBytes: 15 });
    expect(answer).toMatchObject({ head: HEAD, cut: true });
    expect(answer.body.toString()).toBe('0123456789abcde');
    expect(caller.requests[0]!.window_bytes).toBe(16);
    await new Promise((resolve) => setImmediate(resolve));
    expect(caller.cancels).toBe(1);
    expect(caller.delivered).toBe(2);
  });

  it('keeps an answer of exactly maxBytes whole, and cuts a whole answer that is longer', async () => {
    expect(await callBuffered(new ScriptedCaller({ chunks: ['01234', '56789'] }), request, { maxBytes: 10 })).toEqual({
      head: HEAD,
      body: Buffer.from('0123456789'),
    });
    const cut = await callBuffered(new ScriptedCaller({ whole: '0123456789' }), request, { maxBytes: 4 });
    expect(cut).toMatchObject({ cut: true });
    expect(cut.body.toString()).toBe('0123');
  });

  it('keeps a window the request already asks for', async () => {
    const caller = new ScriptedCaller({ chunks: ['x'] });
    await callBuffered(caller, { ...request, window_bytes: 4096 }, { maxBytes: 100 });
    expect(caller.requests[0]!.window_bytes).toBe(4096);
  });
});
