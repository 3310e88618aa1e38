import type { ServerDuplexStream } from '@grpc/grpc-js';
import type { ClientFrame__Output, ServerFrame } from '@gateway/proto';

/**
 * Serialises writes of many concurrent requests onto one Exchange stream and honours its flow control:
 * once `write()` returns false, every writer waits for 'drain', so a slow reader slows the platform reads
 * down instead of filling memory.
 */
export class FrameWriter {
  private drained: Promise<void> | undefined;
  private release: (() => void) | undefined;
  private closed = false;
  private pending = 0;
  private idleWaiters: (() => void)[] = [];

  constructor(private readonly call: ServerDuplexStream<ClientFrame__Output, ServerFrame>) {}

  /** Resolves once the frame was handed to the stream (or dropped because the stream is gone). */
  async write(frame: ServerFrame): Promise<void> {
    this.pending += 1;
    try {
      while (this.drained !== undefined) await this.drained;
      if (!this.closed && !this.call.write(frame)) this.waitForDrain();
    } finally {
      this.pending -= 1;
      if (this.pending === 0) for (const resolve of this.idleWaiters.splice(0)) resolve();
    }
  }

  /** Resolves when every frame passed to write() so far has been handed to the stream. */
  flushed(): Promise<void> {
    if (this.pending === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private waitForDrain(): void {
    this.drained = new Promise((resolve) => {
      const done = () => {
        this.call.off('drain', done);
        this.call.off('close', done);
        this.call.off('cancelled', done);
        this.drained = undefined;
        this.release = undefined;
        resolve();
      };
      this.release = done;
      this.call.on('drain', done);
      this.call.on('close', done);
      this.call.on('cancelled', done);
    });
  }

  /** The stream is gone or ended: further frames are dropped and waiting writers are released. */
  close(): void {
    this.closed = true;
    this.release?.();
  }

  get isClosed(): boolean {
    return this.closed;
  }
}
