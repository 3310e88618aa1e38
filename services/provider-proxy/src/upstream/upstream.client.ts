import type { Readable } from 'node:stream';
import { Agent } from 'undici';

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

export interface UpstreamResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Readable;
}

/** The platform HTTP client; an interface so tests and other transports can stand in. */
export interface UpstreamClient {
  /**
   * Sends the request and resolves with the answer head. `signal` aborts the call at any point (also while the
   * body is read); `headersTimeoutMs` bounds the wait for the head.
   */
  send(request: UpstreamRequest, options: { signal: AbortSignal; headersTimeoutMs: number }): Promise<UpstreamResponse>;
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

  async send(
    request: UpstreamRequest,
    options: { signal: AbortSignal; headersTimeoutMs: number },
  ): Promise<UpstreamResponse> {
    const response = await this.agent.request({
      origin: request.origin,
      path: request.pathAndQuery,
      method: request.method,
      headers: request.headers,
      ...(request.body !== undefined ? { body: request.body } : {}),
      signal: options.signal,
      headersTimeout: Math.max(1, Math.ceil(options.headersTimeoutMs)),
      bodyTimeout: this.options.bodyTimeoutMs,
    });
    return { status: response.statusCode, headers: response.headers, body: response.body };
  }

  async close(): Promise<void> {
    await this.agent.close();
  }

  async destroy(): Promise<void> {
    await this.agent.destroy();
  }
}
