import type { IncomingHttpHeaders } from 'node:http';

export interface LoggedRequest {
  seq: number;
  time: string;
  method: string;
  path: string;
  /** Raw query string without "?", exactly as received (still percent-encoded). */
  query: string;
  headers: IncomingHttpHeaders;
  /** Raw body text; null when the request had none. */
  body: string | null;
}

/**
 * What reached the sandbox, for tests (test/dev only): did the gateway inject the token, drop caller
 * credentials, never forward a write? Bounded ring; sequence numbers keep growing across clears so a
 * reader's `since` stays meaningful.
 */
export class RequestLog {
  private entries: LoggedRequest[] = [];
  private seq = 0;

  constructor(
    private readonly limit: number,
    private readonly now: () => number,
  ) {}

  record(method: string, path: string, query: string, headers: IncomingHttpHeaders, body: string): void {
    this.seq += 1;
    this.entries.push({
      seq: this.seq,
      time: new Date(this.now()).toISOString(),
      method,
      path,
      query,
      headers,
      body: body === '' ? null : body,
    });
    if (this.entries.length > this.limit) this.entries.splice(0, this.entries.length - this.limit);
  }

  since(seq: number): LoggedRequest[] {
    return this.entries.filter((entry) => entry.seq > seq);
  }

  lastSeq(): number {
    return this.seq;
  }

  clear(): number {
    const cleared = this.entries.length;
    this.entries = [];
    return cleared;
  }
}
