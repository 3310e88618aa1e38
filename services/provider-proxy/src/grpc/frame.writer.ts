import type { ServerDuplexStream } from '@grpc/grpc-js';
import type { ClientFrames__Output, ServerFrame, ServerFrames } from '@gateway/proto';

/**
 * Body bytes after which a batch leaves before its turn ends, so one large answer streaming out does not hold
 * the frames of other answers back for more than this.
 */
export const MAX_BATCH_BYTES = 256 * 1024;

export type ExchangeCall = ServerDuplexStream<ClientFrames__Output, ServerFrames>;

/**
 * Serialises writes of many concurrent requests onto one Exchange stream. Frames written during one event-loop
 * turn leave together as one ServerFrames message (one write and HTTP/2 DATA frame instead of one per frame).
 * It honours the stream's flow control: once a batch's `write()` returns false, every writer waits for 'drain',
 * so a slow reader slows the platform reads down instead of filling memory.
 */
export class FrameWriter {
  private batch: ServerFrame[] = [];
  private batchBytes = 0;
  private flushScheduled = false;
  private drained: Promise<void> | undefined;
  private release: (() => void) | undefined;
  private closed = false;
  private pending = 0;
  private idleWaiters: (() => void)[] = [];

  constructor(private readonly call: ExchangeCall) {}

  /**
   * Resolves once the frame joined a batch that leaves at the end of this turn (or was dropped because the
   * stream is gone); waits first while the stream's buffer is full.
   */
  async write(frame: ServerFrame): Promise<void> {
    this.pending += 1;
    try {
      while (this.drained !== undefined) await this.drained;
      if (this.closed) return;
      this.batch.push(frame);
      this.batchBytes += bodyBytes(frame);
      if (this.batchBytes >= MAX_BATCH_BYTES) this.flush();
      else this.scheduleFlush();
    } finally {
      this.pending -= 1;
      this.settleIfIdle();
    }
  }

  /** Resolves when every frame passed to write() so far has been handed to the stream. */
  flushed(): Promise<void> {
    if (this.idle) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** The stream is gone or ended: queued and further frames are dropped and waiting writers are released. */
  close(): void {
    this.closed = true;
    this.batch = [];
    this.batchBytes = 0;
    this.release?.();
    this.settleIfIdle();
  }

  get isClosed(): boolean {
    return this.closed;
  }

  private get idle(): boolean {
    return this.pending === 0 && this.batch.length === 0;
  }

  private scheduleFlush(): void {
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    setImmediate(() => {
      this.flushScheduled = false;
      this.flush();
    });
  }

  private flush(): void {
    if (this.batch.length === 0) return;
    const frames = this.batch;
    this.batch = [];
    this.batchBytes = 0;
    if (!this.closed && !this.call.write({ frames })) this.waitForDrain();
    this.settleIfIdle();
  }

  private settleIfIdle(): void {
    if (this.idle) for (const resolve of this.idleWaiters.splice(0)) resolve();
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
}

function bodyBytes(frame: ServerFrame): number {
  return frame.chunk?.length ?? frame.whole?.body?.length ?? 0;
}
