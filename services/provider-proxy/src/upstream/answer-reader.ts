import type { Dispatcher } from 'undici';
import type { CancelSignal } from '../proxy/cancellation';
import { AnswerHeaders } from './answer-headers';
import type { UpstreamBody, UpstreamResponse } from './upstream.client';

/** Body bytes buffered ahead of the reader before the platform socket is paused. */
export const READ_AHEAD_BYTES = 64 * 1024;

const EMPTY = Buffer.alloc(0);

/**
 * One platform call's answer, fed by undici's dispatch callbacks: `head` resolves with the status, the headers and
 * the body's first `prefixBytes` (or all of it, if it ends sooner); the rest is read through `read()`, pausing the
 * socket while more than READ_AHEAD_BYTES wait unread. The caller's signal aborts the call in every phase: waiting
 * for a pooled connection (the promise rejects at once), waiting for the head, or reading the body.
 */
export class AnswerReader implements Dispatcher.DispatchHandlers, UpstreamBody {
  readonly head: Promise<UpstreamResponse>;
  private settleHead!: { resolve: (response: UpstreamResponse) => void; reject: (error: unknown) => void };
  private headSettled = false;
  private status = 0;
  private headers = AnswerHeaders.NONE;
  private chunks: Buffer[] = [];
  private buffered = 0;
  private ended = false;
  private failure: unknown = undefined;
  private abortCall: ((error?: Error) => void) | undefined;
  private resumeSocket: (() => void) | undefined;
  private paused = false;
  private waiting: { resolve: (chunk: Buffer | undefined) => void; reject: (error: unknown) => void } | undefined;
  private readonly onAbort = () => this.fail(this.signal.reason, true);

  constructor(
    private readonly signal: CancelSignal,
    private readonly prefixBytes: number,
  ) {
    this.head = new Promise((resolve, reject) => {
      this.settleHead = { resolve, reject };
    });
    if (signal.aborted) this.fail(signal.reason, true);
    else signal.addEventListener('abort', this.onAbort);
  }

  onConnect(abort: (error?: Error) => void): void {
    if (this.failure !== undefined) {
      abort(asError(this.failure));
      return;
    }
    this.abortCall = abort;
  }

  onHeaders(status: number, rawHeaders: Buffer[], resume: () => void): boolean {
    // 1xx informational answers come before the real head.
    if (status < 200) return true;
    this.status = status;
    this.headers = new AnswerHeaders(rawHeaders);
    this.resumeSocket = resume;
    return true;
  }

  onData(chunk: Buffer): boolean {
    if (this.failure !== undefined) return false;
    this.chunks.push(chunk);
    this.buffered += chunk.length;
    if (!this.headSettled) {
      if (this.buffered >= this.prefixBytes) this.resolveHead(false);
    } else this.wakeReader();
    this.paused = this.buffered > READ_AHEAD_BYTES;
    return !this.paused;
  }

  onComplete(): void {
    if (this.failure !== undefined) return;
    this.ended = true;
    this.signal.removeEventListener('abort', this.onAbort);
    if (!this.headSettled) this.resolveHead(true);
    else this.wakeReader();
  }

  onError(error: Error): void {
    this.fail(error, false);
  }

  read(): Promise<Buffer | undefined> {
    if (this.buffered > 0) return Promise.resolve(this.take());
    if (this.failure !== undefined) return Promise.reject(this.failure);
    if (this.ended) return Promise.resolve(undefined);
    return new Promise((resolve, reject) => {
      this.waiting = { resolve, reject };
    });
  }

  destroy(): void {
    this.chunks = [];
    this.buffered = 0;
    if (!this.ended && this.failure === undefined) this.fail(new AnswerDroppedError(), true);
  }

  private resolveHead(complete: boolean): void {
    this.headSettled = true;
    const prefix = this.take();
    this.settleHead.resolve({
      status: this.status,
      headers: this.headers,
      prefix,
      complete,
      rest: this,
    });
  }

  /** Everything buffered, as one buffer; resumes a socket paused for the reader. */
  private take(): Buffer {
    const chunks = this.chunks;
    const taken = chunks.length === 1 ? chunks[0]! : chunks.length === 0 ? EMPTY : Buffer.concat(chunks, this.buffered);
    this.chunks = [];
    this.buffered = 0;
    if (this.paused) {
      this.paused = false;
      this.resumeSocket?.();
    }
    return taken;
  }

  private wakeReader(): void {
    const waiting = this.waiting;
    if (waiting === undefined) return;
    this.waiting = undefined;
    if (this.buffered > 0) waiting.resolve(this.take());
    else if (this.failure !== undefined) waiting.reject(this.failure);
    else if (this.ended) waiting.resolve(undefined);
  }

  /** The call failed (undici's error) or is given up (`abortCall`: the caller's reason reaches undici too). */
  private fail(error: unknown, abortCall: boolean): void {
    if (this.failure !== undefined || this.ended) return;
    this.failure = error ?? new AnswerDroppedError();
    this.signal.removeEventListener('abort', this.onAbort);
    if (abortCall) this.abortCall?.(asError(this.failure));
    if (!this.headSettled) {
      this.headSettled = true;
      this.settleHead.reject(this.failure);
    } else this.wakeReader();
  }
}

/** Why a call whose answer was dropped unread (destroy) ends: its socket is closed rather than reused. */
export class AnswerDroppedError extends Error {
  constructor() {
    super('the answer was dropped before its end');
    this.name = 'AnswerDroppedError';
  }
}

function asError(reason: unknown): Error {
  return reason instanceof Error ? reason : new AnswerDroppedError();
}
