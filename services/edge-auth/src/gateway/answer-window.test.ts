import { once } from 'node:events';
import { connect, type Socket } from 'node:net';
import type { FetchRequest, ProviderCall, ProviderCaller, ResponseSink } from '@gateway/proto';
import { newApiKeySecret } from '@gateway/store';
import { serveGatewayHandler, type ServedGateway } from './gateway-handler.fixture';

const CHUNK_BYTES = 64 * 1024;
const ANSWER_BYTES = 24 * 1024 * 1024;
const CAMPAIGNS = '/v1/video-ads/v1.3/campaign/get/';

/**
 * provider-proxy as seen through the caller: it sends a request's body chunks while the credit edge-auth granted
 * lasts (window_bytes, then Credit), as its Exchange handler does.
 */
class WindowedProxy implements ProviderCaller {
  readonly requests: FetchRequest[] = [];
  sent = 0;
  credited = 0;
  cancelled = false;
  private sink: ResponseSink | undefined;
  private window = 0;
  private ended = false;

  call(request: FetchRequest, sink: ResponseSink): ProviderCall {
    this.requests.push(request);
    this.sink = sink;
    this.window = request.window_bytes ?? 0;
    setImmediate(() => {
      sink.onHead({
        status: 200,
        contentType: 'application/octet-stream',
        headers: { 'content-length': String(ANSWER_BYTES) },
      });
      this.pump();
    });
    return {
      cancel: () => (this.cancelled = true),
      credit: (bytes) => {
        this.credited += bytes;
        setImmediate(() => this.pump());
      },
    };
  }

  close(): void {}

  private pump(): void {
    if (this.cancelled) return;
    while (this.sent < ANSWER_BYTES && this.sent - this.credited < this.window) {
      const size = Math.min(CHUNK_BYTES, ANSWER_BYTES - this.sent);
      this.sent += size;
      this.sink!.onChunk(Buffer.alloc(size, 0x62));
    }
    if (this.sent === ANSWER_BYTES && !this.ended) {
      this.ended = true;
      this.sink!.onEnd();
    }
  }
}

const rate = { limit: 100, windowSeconds: 1, remaining: 99, resetSeconds: 1 };
const quota = { limit: 1_000, used: 1, remaining: 999, resetSeconds: 1_000, overageMode: 'metered' as const };

describe('edge-auth answer window', () => {
  let served: ServedGateway;
  let port: number;
  let proxy: WindowedProxy;

  let sendTimeoutMs: number;

  beforeEach(() => {
    sendTimeoutMs = 60_000;
  });

  async function start(): Promise<void> {
    proxy = new WindowedProxy();
    served = await serveGatewayHandler({
      decisions: {
        decide: () => Promise.resolve({ ok: true, keyId: 'key_1', customerId: 'cus_1', mcpTier: 'basic', rate, quota }),
        refund: () => Promise.resolve(),
      },
      caller: proxy,
      sendTimeoutMs,
    });
    port = served.port;
  }

  afterEach(async () => {
    await served.close();
  });

  /** A raw client that sends one request, stops reading at its first bytes and counts the bytes it read. */
  function get(): { socket: Socket; received: () => number } {
    const socket = connect(port, '127.0.0.1');
    let received = 0;
    socket.on('error', () => undefined);
    socket.on('data', (data: Buffer) => {
      if (received === 0) socket.pause();
      received += data.length;
    });
    socket.write(`GET ${CAMPAIGNS} HTTP/1.1\r\nHost: edge\r\nX-API-Key: ${newApiKeySecret()}\r\n\r\n`);
    return { socket, received: () => received };
  }

  /** Resolves once `value()` has not changed for `quietMs`. */
  async function settled(value: () => number, quietMs = 300): Promise<void> {
    for (let last = -1; value() !== last;) {
      last = value();
      await new Promise((resolve) => setTimeout(resolve, quietMs));
    }
  }

  it('asks provider-proxy for a window and grants credit only as far as the client reads', async () => {
    await start();
    const client = get();
    await settled(() => proxy.sent);

    // The client stopped reading: the answer stopped at what socket buffers hold plus one window.
    expect(proxy.requests[0]!.window_bytes).toBe(1024 * 1024);
    expect(proxy.sent).toBeLessThan(ANSWER_BYTES / 2);
    expect(proxy.sent - proxy.credited).toBeLessThanOrEqual(1024 * 1024);

    client.socket.resume();
    await settled(() => client.received());

    expect(proxy.sent).toBe(ANSWER_BYTES);
    // Credit follows the client's reads up to the platform's last chunk. Bytes the socket takes after the answer
    // ended are not granted back (nothing is left to send), so up to one window may stay uncredited.
    expect(proxy.credited).toBeLessThanOrEqual(ANSWER_BYTES);
    expect(ANSWER_BYTES - proxy.credited).toBeLessThanOrEqual(1024 * 1024);
    expect(client.received()).toBeGreaterThan(ANSWER_BYTES);
    client.socket.destroy();
  }, 30_000);

  it('cancels the platform call of a client that goes away while the answer waits for it', async () => {
    await start();
    const client = get();
    await settled(() => proxy.sent);
    client.socket.destroy();
    await settled(() => (proxy.cancelled ? 1 : 0));

    expect(proxy.cancelled).toBe(true);
    expect(proxy.sent).toBeLessThan(ANSWER_BYTES);
  });

  it('cuts the answer of a client that takes none of it for the send timeout, and cancels its platform call', async () => {
    sendTimeoutMs = 300;
    await start();
    const client = get();
    await settled(() => proxy.sent);
    await settled(() => (proxy.cancelled ? 1 : 0));

    expect(proxy.cancelled).toBe(true);
    expect(proxy.sent).toBeLessThan(ANSWER_BYTES);
    // The client, reading again, finds the answer cut short.
    client.socket.resume();
    await once(client.socket, 'close');
    expect(client.received()).toBeLessThan(ANSWER_BYTES);
  });
});
