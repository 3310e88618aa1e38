import { Server, ServerCredentials, status } from '@grpc/grpc-js';
import {
  createRawProviderProxyClient,
  providerProxyService,
  type ProviderProxyClient,
  type ProviderProxyHandlers,
  type ServerFrame__Output,
  type ServerFrames__Output,
} from '@gateway/proto';
import { FrameWriter, MAX_BATCH_BYTES, type ExchangeCall } from './frame.writer';

const CHUNK = Buffer.alloc(64 * 1024, 0x61);
const head = { status: 200, content_type: 'application/json', headers: {} };

/**
 * A real gRPC server on loopback whose Exchange handler runs `script` with a FrameWriter on the first message it
 * receives; the client collects the frames of every ServerFrames message it gets.
 */
describe('FrameWriter', () => {
  let server: Server;
  let client: ProviderProxyClient;
  let script: (writer: FrameWriter) => Promise<void> | void;

  beforeAll(async () => {
    server = new Server();
    const handlers: ProviderProxyHandlers = {
      Fetch: (_call, callback) => callback({ code: status.UNIMPLEMENTED }),
      Exchange: (call: ExchangeCall) => {
        const writer = new FrameWriter(call);
        call.once('data', async () => {
          await script(writer);
          await writer.flushed();
          call.end();
        });
      },
    };
    server.addService(providerProxyService(), handlers);
    const port = await new Promise<number>((resolve, reject) =>
      server.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (error, bound) =>
        error ? reject(error) : resolve(bound),
      ),
    );
    client = createRawProviderProxyClient(`127.0.0.1:${port}`);
  });

  afterAll(async () => {
    client.close();
    await new Promise<void>((resolve) => server.tryShutdown(() => resolve()));
  });

  /** Opens a stream, lets the server run `script` and resolves with the frames of each message received. */
  function exchange(run: typeof script): Promise<ServerFrame__Output[][]> {
    script = run;
    const messages: ServerFrame__Output[][] = [];
    const stream = client.exchange();
    stream.on('data', (message: ServerFrames__Output) => messages.push(message.frames));
    stream.write({ frames: [] });
    stream.end();
    return new Promise((resolve, reject) => {
      stream.on('error', reject);
      stream.on('status', () => resolve(messages));
    });
  }

  // The handler ends the stream once flushed() resolves: a frame that left after that would be lost.
  it('sends the frames written during one event-loop turn as one ServerFrames message', async () => {
    const messages = await exchange((writer) => {
      for (let i = 0; i < 10; i++)
        void writer.write({ correlation_id: `r${i}`, whole: { head, body: Buffer.from('{}') } });
    });
    expect(messages).toHaveLength(1);
    expect(messages[0]!.map((frame) => frame.correlation_id)).toEqual(Array.from({ length: 10 }, (_, i) => `r${i}`));
  });

  it('sends frames written in later turns in later messages, in order', async () => {
    const messages = await exchange(async (writer) => {
      await writer.write({ correlation_id: 'a', head });
      await new Promise((resolve) => setImmediate(resolve));
      await writer.write({ correlation_id: 'a', end: { failure: null } });
    });
    expect(messages.map((frames) => frames.map((frame) => frame.kind))).toEqual([['head'], ['end']]);
  });

  it('flushes a batch early at the byte cap so a large answer does not hold a small one of its turn back', async () => {
    const messages = await exchange(async (writer) => {
      const big = (async () => {
        for (let i = 0; i < 10; i++) await writer.write({ correlation_id: 'big', chunk: CHUNK });
      })();
      void writer.write({ correlation_id: 'small', whole: { head, body: Buffer.from('{}') } });
      await big;
    });
    const bodyBytes = (frames: ServerFrame__Output[]) =>
      frames.reduce((sum, frame) => sum + (frame.chunk?.length ?? frame.whole?.body.length ?? 0), 0);
    expect(messages.length).toBeGreaterThanOrEqual(3);
    for (const frames of messages) expect(bodyBytes(frames)).toBeLessThanOrEqual(MAX_BATCH_BYTES + CHUNK.length);
    expect(messages[0]!.some((frame) => frame.correlation_id === 'small')).toBe(true);
    const chunks = messages.flat().filter((frame) => frame.kind === 'chunk');
    expect(chunks).toHaveLength(10);
    expect(chunks.every((frame) => frame.chunk!.equals(CHUNK))).toBe(true);
  });

  it('drops the queued and later frames of a closed writer and releases flushed()', async () => {
    const messages = await exchange(async (writer) => {
      void writer.write({ correlation_id: 'dropped', head });
      writer.close();
      await writer.write({ correlation_id: 'after', head });
      await writer.flushed();
    });
    expect(messages).toEqual([]);
  });
});
