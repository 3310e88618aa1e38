/**
 * Test support for the provider-proxy unit tests: a local HTTP server standing in for the platform, an
 * in-memory connection source, and the real gRPC server on loopback with small limits.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Metadata, type ClientDuplexStream } from '@grpc/grpc-js';
import {
  createRawProviderProxyClient,
  type ClientFrame,
  type ClientFrames,
  type FetchRequest,
  type FetchResponse__Output,
  type ProviderProxyClient,
  type ServerFrame__Output,
  type ServerFrames__Output,
} from '@gateway/proto';
import { newAccountId, type CredentialsWrite } from '@gateway/store';
import { createLogger, type Logger } from '@gateway/telemetry';
import type { ConnectionCredentials } from './adapters/provider-adapter';
import type { ConnectionLookup, ConnectionSource } from './credentials/connection.source';
import { startProviderProxy, type RunningProviderProxy, type ServerConfig } from './server';

export const TEST_APP_ID = '7300000000000000042';
export const TEST_APP_SECRET = 'test-app-secret-0123456789abcdef';

export interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  /** Resolves when the platform saw the request end early (the proxy aborted it). */
  aborted: Promise<void>;
}

export interface FakePlatform {
  baseUrl: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

export async function startFakePlatform(
  handle: (req: IncomingMessage, res: ServerResponse, recorded: RecordedRequest) => void,
): Promise<FakePlatform> {
  const requests: RecordedRequest[] = [];
  const server: Server = createServer((req, res) => {
    const recorded: RecordedRequest = {
      method: req.method ?? '',
      url: req.url ?? '',
      headers: req.headers,
      aborted: new Promise((resolve) => res.once('close', () => !res.writableFinished && resolve())),
    };
    requests.push(recorded);
    handle(req, res, recorded);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export class MemoryConnections implements ConnectionSource {
  readonly lookups = new Map<string, ConnectionLookup>();
  reads = 0;

  add(token: string, provider = 'video-ads', active = true): string {
    const accountId = newAccountId();
    this.set(accountId, token, provider, active);
    return accountId;
  }

  set(accountId: string, token: string, provider = 'video-ads', active = true): void {
    this.lookups.set(
      accountId,
      active
        ? { found: true, provider, active: true, credentials: { access_token: token } }
        : { found: true, provider, active: false, status: 'revoked' },
    );
  }

  async lookup(accountId: string): Promise<ConnectionLookup> {
    this.reads += 1;
    return this.lookups.get(accountId) ?? { found: false };
  }

  async store(
    accountId: string,
    renewedFrom: ConnectionCredentials,
    credentials: ConnectionCredentials,
  ): Promise<CredentialsWrite> {
    const current = this.lookups.get(accountId);
    if (!current?.found || !current.active) return 'inactive';
    if (current.credentials.access_token !== renewedFrom.access_token) return 'superseded';
    this.lookups.set(accountId, { ...current, credentials });
    return 'stored';
  }

  async markNeedsRegrant(accountId: string, refused: ConnectionCredentials): Promise<CredentialsWrite> {
    const current = this.lookups.get(accountId);
    if (!current?.found || !current.active) return 'inactive';
    if (current.credentials.access_token !== refused.access_token) return 'superseded';
    this.lookups.set(accountId, { found: true, provider: current.provider, active: false, status: 'needs_regrant' });
    return 'stored';
  }
}

export function testConfig(baseUrl: string, overrides: Partial<ServerConfig> = {}): ServerConfig {
  return {
    HOST: '127.0.0.1',
    GRPC_PORT: 0,
    HTTP_PORT: 0,
    VIDEO_ADS_BASE_URL: baseUrl,
    VIDEO_ADS_APP_ID: TEST_APP_ID,
    VIDEO_ADS_APP_SECRET: TEST_APP_SECRET,
    VIDEO_ADS_APP_QPS: 0,
    VIDEO_ADS_APP_BURST: 1,
    QPS_QUEUE_LIMIT: 100,
    QPS_MAX_WAIT_MS: 2_000,
    UPSTREAM_TIMEOUT_MS: 5_000,
    UPSTREAM_MAX_TIMEOUT_MS: 10_000,
    UPSTREAM_BODY_TIMEOUT_MS: 5_000,
    UPSTREAM_MAX_ANSWER_BYTES: 33_554_432,
    UPSTREAM_CONNECTIONS: 8,
    UPSTREAM_CONNECT_TIMEOUT_MS: 2_000,
    UPSTREAM_KEEP_ALIVE_MS: 5_000,
    CREDENTIAL_CACHE_TTL_MS: 60_000,
    CREDENTIAL_CACHE_MAX_ENTRIES: 100,
    RENEWAL_LEASE_TTL_MS: 20_000,
    REFRESH_SWEEP_INTERVAL_MS: 3_600_000,
    REFRESH_SWEEP_MARGIN_MS: 7 * 24 * 3_600_000,
    REFRESH_SWEEP_BATCH: 100,
    ...overrides,
  };
}

export interface TestProxy {
  proxy: RunningProviderProxy;
  client: ProviderProxyClient;
  fetch(request: FetchRequest): Promise<FetchResponse__Output>;
  close(): Promise<void>;
}

export async function startTestProxy(
  config: ServerConfig,
  connections: ConnectionSource,
  logger: Logger = createLogger('provider-proxy', 'silent'),
): Promise<TestProxy> {
  const proxy = await startProviderProxy({ config, logger, connections });
  const client = createRawProviderProxyClient(proxy.grpcAddress);
  return {
    proxy,
    client,
    fetch: (request) =>
      new Promise((resolve, reject) => {
        client.fetch(request, new Metadata(), { deadline: Date.now() + 15_000 }, (error, response) =>
          error || !response ? reject(error ?? new Error('no response')) : resolve(response),
        );
      }),
    close: async () => {
      client.close();
      await proxy.shutdown(1_000);
    },
  };
}

export interface CollectedAnswer {
  head?: { status: number; content_type: string; headers: Record<string, string> };
  chunks: Buffer[];
  body: Buffer;
  failure: { code: string; detail: string } | null;
  /** Frame kinds in arrival order, e.g. head, chunk, chunk, end, or just whole. */
  kinds: string[];
}

/**
 * An Exchange stream with answers collected per correlation id. Each `send`, `cancel` or `write` is one
 * ClientFrames message; `messages` keeps the frames of each ServerFrames message received.
 */
export class ExchangeClient {
  readonly stream: ClientDuplexStream<ClientFrames, ServerFrames__Output>;
  readonly frames: ServerFrame__Output[] = [];
  readonly messages: ServerFrame__Output[][] = [];
  private readonly answers = new Map<string, CollectedAnswer>();
  private readonly waiters = new Map<string, (answer: CollectedAnswer) => void>();

  constructor(client: ProviderProxyClient) {
    this.stream = client.exchange();
    this.stream.on('data', (message: ServerFrames__Output) => {
      this.messages.push(message.frames);
      for (const frame of message.frames) this.onFrame(frame);
    });
    this.stream.on('error', () => undefined);
  }

  send(request: FetchRequest & { correlation_id: string }): Promise<CollectedAnswer> {
    const done = this.answer(request.correlation_id);
    this.write([{ request }]);
    return done;
  }

  /** Sends the frames as one batch; answers of its requests are collected only after `answer(id)`. */
  write(frames: ClientFrame[]): void {
    this.stream.write({ frames });
  }

  answer(id: string): Promise<CollectedAnswer> {
    this.answers.set(id, { chunks: [], body: Buffer.alloc(0), failure: null, kinds: [] });
    return new Promise((resolve) => this.waiters.set(id, resolve));
  }

  cancel(id: string): void {
    this.write([{ cancel: { correlation_id: id } }]);
  }

  private onFrame(frame: ServerFrame__Output): void {
    this.frames.push(frame);
    const answer = this.answers.get(frame.correlation_id);
    if (!answer) return;
    answer.kinds.push(frame.kind ?? 'none');
    if (frame.head) answer.head = frame.head;
    if (frame.chunk) answer.chunks.push(frame.chunk);
    if (frame.whole) {
      answer.head = frame.whole.head ?? undefined;
      answer.chunks.push(frame.whole.body);
    }
    if (frame.kind === 'end' || frame.kind === 'whole') {
      answer.failure = frame.end?.failure ?? null;
      answer.body = Buffer.concat(answer.chunks);
      this.answers.delete(frame.correlation_id);
      this.waiters.get(frame.correlation_id)?.(answer);
      this.waiters.delete(frame.correlation_id);
    }
  }
}

export function sendJson(res: ServerResponse, payload: unknown, status = 200): void {
  const body = JSON.stringify(payload);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}
