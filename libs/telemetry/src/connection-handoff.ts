import cluster, { type Worker } from 'node:cluster';
import type { Server as HttpServer } from 'node:http';
import { createServer, type Server, type Socket } from 'node:net';
import { answerLivenessChecks } from './worker-liveness';

const CONNECTION = 'gateway:connection';
const CLAIMED = 'gateway:connection-claimed';
const DECLINED = 'gateway:connection-declined';
const SERVING = 'gateway:serving';
const NOT_SERVING = 'gateway:not-serving';

/** How long an ended worker's channel is given to deliver its last messages, and how often it is looked at. */
const CHANNEL_END_WAIT_MS = 1_000;
const CHANNEL_POLL_MS = 10;

type HandoffMessage =
  | { type: typeof CONNECTION | typeof CLAIMED | typeof DECLINED; id: number }
  | { type: typeof SERVING | typeof NOT_SERVING };

function isHandoffMessage(message: unknown): message is HandoffMessage {
  if (typeof message !== 'object' || message === null) return false;
  const { type } = message as { type?: unknown };
  return type === CONNECTION || type === CLAIMED || type === DECLINED || type === SERVING || type === NOT_SERVING;
}

interface Handed {
  socket: Socket;
  worker: Worker;
}

/**
 * The primary's side of a port served by several worker processes: it accepts each connection itself, without
 * reading from it, and hands it to the serving workers in turn, keeping its own descriptor until the worker says it
 * has the connection. A connection handed to a worker that ends before claiming it (it crashed, or stopped serving)
 * goes to another worker, unread, so no client waits on a connection nobody will answer.
 *
 * node:cluster's round robin does the same handing but never takes a connection back: one handed to a worker that
 * died before accepting it stays open in the primary, unanswered, until the client gives up.
 */
export class ConnectionDispatcher {
  readonly server: Server;
  private readonly serving: Worker[] = [];
  /** Serving workers whose event loop has not answered for a while (setLate): handed nothing new meanwhile. */
  private readonly late = new Set<Worker>();
  private readonly unclaimed = new Map<number, Handed>();
  /** Connections that came while no worker was serving: handed out when one is. */
  private waiting: Socket[] = [];
  private turn = 0;
  private nextId = 0;
  private readonly servingListeners: Array<() => void> = [];
  private closed = false;

  /** `workers`: where the workers' messages, exits and disconnections come from (node:cluster; tests stand in). */
  constructor(workers: Pick<typeof cluster, 'on'> = cluster) {
    // The listening socket's options apply to the connection, whichever process reads it.
    this.server = createServer({ pauseOnConnect: true, noDelay: true }, (socket) => this.hand(socket));
    workers.on('message', (worker, message: unknown) => {
      if (isHandoffMessage(message)) this.onMessage(worker, message);
    });
    // node emits no 'disconnect' for a worker that died with a connection on its way to it (its channel waits for
    // the handle's acknowledgement first), so its exit is the signal.
    workers.on('exit', (worker) => this.takeBackFrom(worker));
    workers.on('disconnect', (worker) => this.takeBackFrom(worker));
  }

  /** Connections handed to a worker that has not claimed them yet. */
  get pending(): number {
    return this.unclaimed.size;
  }

  /** Runs `listener` once, when a worker first says it serves (unless closed before). */
  onceServing(listener: () => void): void {
    if (this.serving.length > 0) listener();
    else this.servingListeners.push(listener);
  }

  /**
   * A worker that is late (its event loop has not answered for a while) is handed no new connection until it is on
   * time again, unless every serving worker is late.
   */
  setLate(worker: Worker, late: boolean): void {
    if (late) this.late.add(worker);
    else this.late.delete(worker);
  }

  /** Stops accepting; connections that wait for a worker, or come back from one, are closed. */
  close(): void {
    this.closed = true;
    this.servingListeners.length = 0;
    this.server.close();
    for (const socket of this.waiting) socket.destroy();
    this.waiting = [];
  }

  private onMessage(worker: Worker, message: HandoffMessage): void {
    switch (message.type) {
      case SERVING:
        if (!this.serving.includes(worker)) this.serving.push(worker);
        for (const listener of this.servingListeners.splice(0)) listener();
        for (const socket of this.waiting.splice(0)) this.hand(socket);
        return;
      case NOT_SERVING:
        this.stopHanding(worker);
        return;
      case CLAIMED: {
        const handed = this.unclaimed.get(message.id);
        if (handed?.worker !== worker) return;
        this.unclaimed.delete(message.id);
        // Closes the primary's descriptor only: the worker holds its own.
        handed.socket.destroy();
        return;
      }
      case DECLINED:
        if (this.unclaimed.get(message.id)?.worker !== worker) return;
        this.stopHanding(worker);
        this.reclaim(message.id);
        return;
      case CONNECTION:
        return;
    }
  }

  private hand(socket: Socket): void {
    if (socket.destroyed) return;
    if (this.closed) {
      socket.destroy();
      return;
    }
    const worker = this.nextWorker();
    if (worker === undefined) {
      this.waiting.push(socket);
      return;
    }
    const id = ++this.nextId;
    this.unclaimed.set(id, { socket, worker });
    const undelivered = (error: Error | null | undefined) => {
      if (!error) return;
      this.stopHanding(worker);
      this.reclaim(id);
    };
    try {
      worker.send({ type: CONNECTION, id }, socket, { keepOpen: true }, undelivered);
    } catch (error) {
      undelivered(error instanceof Error ? error : new Error(String(error)));
    }
  }

  private nextWorker(): Worker | undefined {
    const count = this.serving.length;
    for (let tried = 0; tried < count; tried++) {
      const worker = this.serving[this.turn++ % count]!;
      if (!this.late.has(worker)) return worker;
    }
    return this.serving[this.turn++ % Math.max(1, count)];
  }

  private reclaim(id: number): void {
    const handed = this.unclaimed.get(id);
    if (handed === undefined) return;
    this.unclaimed.delete(id);
    this.hand(handed.socket);
  }

  /**
   * Hands the connections a worker that ended did not claim to the others, once its channel has been read to its
   * end: a claim it sent just before it ended may still be in there, and a claimed connection may have been read.
   */
  private takeBackFrom(worker: Worker, waitedMs = 0): void {
    this.stopHanding(worker);
    this.late.delete(worker);
    if (worker.process.connected && waitedMs < CHANNEL_END_WAIT_MS) {
      setTimeout(() => this.takeBackFrom(worker, waitedMs + CHANNEL_POLL_MS), CHANNEL_POLL_MS);
      return;
    }
    for (const [id, handed] of [...this.unclaimed]) if (handed.worker === worker) this.reclaim(id);
  }

  private stopHanding(worker: Worker): void {
    const index = this.serving.indexOf(worker);
    if (index !== -1) this.serving.splice(index, 1);
  }
}

/** A worker's side: the connections the primary hands it, served by its HTTP server. */
export interface HandedConnections {
  /** Declines every connection handed from now on (the primary gives it to another worker). */
  stop(): void;
  /** Resolves once every connection this worker claimed has closed. */
  closed(): Promise<void>;
}

/**
 * Serves the connections a ConnectionDispatcher hands this worker process with `server`, which does not listen
 * itself. Each connection is claimed before the server reads a byte of it, so one the primary takes back (the
 * claim never came) is still whole.
 */
export function serveHandedConnections(server: HttpServer): HandedConnections {
  let serving = true;
  const open = new Set<Socket>();
  let onClosed: (() => void) | undefined;
  const send = (message: HandoffMessage) => {
    if (process.connected) process.send!(message);
  };
  process.on('message', (message: unknown, socket: unknown) => {
    if (!isHandoffMessage(message) || message.type !== CONNECTION) return;
    const connection = socket as Socket | undefined;
    if (!serving || connection === undefined) {
      connection?.destroy();
      send({ type: DECLINED, id: message.id });
      return;
    }
    send({ type: CLAIMED, id: message.id });
    open.add(connection);
    connection.once('close', () => {
      open.delete(connection);
      if (open.size === 0) onClosed?.();
    });
    server.emit('connection', connection);
  });
  // node's HTTP server starts tracking its connections when it listens: without that, its idle closing and its
  // headers and request timeouts would not apply to the handed ones.
  server.emit('listening');
  // Watched from here on: a worker that stops answering (watchWorkerLiveness) is handed nothing, then replaced.
  answerLivenessChecks();
  send({ type: SERVING });
  return {
    stop() {
      if (!serving) return;
      serving = false;
      send({ type: NOT_SERVING });
    },
    closed() {
      if (open.size === 0) return Promise.resolve();
      return new Promise<void>((resolve) => {
        const previous = onClosed;
        onClosed = () => {
          previous?.();
          resolve();
        };
      });
    },
  };
}
