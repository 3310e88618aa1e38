import { Agent } from 'undici';
import type { CancelSignal } from '../proxy/cancellation';
import type { AnswerHeaders } from './answer-headers';
import { AnswerReader } from './answer-reader';

export interface UpstreamRequest {
  method: 'GET' | 'POST';
  /** scheme://host[:port] of the platform. */
  origin: string;
  /** Path and query exactly as they go on the request line. */
  pathAndQuery: string;
  /** The complete header set: nothing else is added from the caller. */
  headers: Record<string, string>;
  /** Sent byte for byte (signatures cover these bytes). */
  body?: Buffer;
}

/** The rest of an answer body, read at the caller's pace: the platform is read no faster than it is taken. */
export interface UpstreamBody {
  /** Every byte that arrived since the last read (at least one), or undefined at the end; rejects when the call broke. */
  read(): Promise<Buffer | undefined>;
  /** Stops the call if its body has not ended (the socket is closed, not reused) and drops what was buffered. */
  destroy(): void;
}

export interface UpstreamResponse {
  status: number;
  headers: AnswerHeaders;
  /** The first bytes of the body: all of it when `complete`, else at least `prefixBytes`. */
  prefix: Buffer;
  complete: boolean;
  /** The bytes after `prefix`; ends at once when `complete`. */
  rest: UpstreamBody;
}

export interface SendOptions {
  /** Aborts the call at any point, also while it waits for a connection or while the body is read. */
  signal: CancelSignal;
  /** Bounds the wait for the answer head once the request is written. */
  headersTimeoutMs: number;
  /** The call resolves once the body has ended or this many bytes of it arrived. */
  prefixBytes: number;
}

/** The platform HTTP client; an interface so tests and other transports can stand in. */
export interface UpstreamClient {
  /** Sends the request and resolves with the answer head and the first bytes of its body. */
  send(request: UpstreamRequest, options: SendOptions): Promise<UpstreamResponse>;
  /** Lets calls in flight finish, then closes the sockets. */
  close(): Promise<void>;
  /** Ends every socket and call at once. */
  destroy(): Promise<void>;
}

export interface UndiciUpstreamOptions {
  /** Keep-alive connections per origin. */
  connections: number;
  connectTimeoutMs: number;
  keepAliveMs: number;
  /** Longest silence between two body chunks. */
  bodyTimeoutMs: number;
}

/**
 * undici Agent: one keep-alive pool per platform origin, bounded in connections, so a burst queues on the
 * pool instead of opening sockets without limit. Redirects are not followed (a 3xx goes back as it is).
 * Answers are read through undici's dispatch API into AnswerReader rather than through a Readable stream: most
 * platform answers are a few hundred bytes that arrive at once, and a stream with its async iterator cost more
 * CPU per answer than the rest of the call.
 */
export class UndiciUpstreamClient implements UpstreamClient {
  private readonly agent: Agent;

  constructor(private readonly options: UndiciUpstreamOptions) {
    this.agent = new Agent({
      connections: options.connections,
      pipelining: 1,
      keepAliveTimeout: options.keepAliveMs,
      keepAliveMaxTimeout: Math.max(options.keepAliveMs, 600_000),
      connect: { timeout: options.connectTimeoutMs },
    });
  }

  send(request: UpstreamRequest, options: SendOptions): Promise<UpstreamResponse> {
    const reader = new AnswerReader(options.signal, options.prefixBytes);
    this.agent.dispatch(
      {
        origin: request.origin,
        path: request.pathAndQuery,
        method: request.method,
        headers: request.headers,
        ...(request.body !== undefined ? { body: request.body } : {}),
        headersTimeout: Math.max(1, Math.ceil(options.headersTimeoutMs)),
        bodyTimeout: this.options.bodyTimeoutMs,
      },
      reader,
    );
    return reader.head;
  }

  async close(): Promise<void> {
    await this.agent.close();
  }

  async destroy(): Promise<void> {
    await this.agent.destroy();
  }
}
