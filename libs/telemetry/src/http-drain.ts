import type { Server } from 'node:http';
import { Server as NetServer } from 'node:net';
import type { HandedConnections } from './connection-handoff';

/** How long kept-alive connections are still served, each answer asking its client to close, before idle ones go. */
const DRAIN_IDLE_GRACE_MS = 1_000;

const IDLE_SWEEP_MS = 50;

/**
 * Stops an HTTP server so that clients with pooled keep-alive connections can follow: new connections are refused at
 * once, but for `idleGraceMs` a request on a connection already open is still answered, with `Connection: close`, and
 * its connection closed after the answer. Only then are the connections that stayed idle closed, and the promise
 * resolves when the last answer in progress has been written.
 *
 * node's own `server.close()` closes every idle connection at once: a client that sends on one of them at that moment
 * (a busy tenant's pool, or any client during a rolling restart, since Kubernetes keeps established connections to a
 * terminating pod) gets a reset for a request the server never read. Here such a client learns from the answer itself
 * that the connection is ending and opens its next one to another replica.
 *
 * A worker process whose connections are handed to it by its primary (`handed`) listens on nothing: it declines the
 * connections handed from now on, and the drain waits for the ones it claimed, which node's close does not count.
 */
export function drainHttpServer(
  server: Server,
  idleGraceMs = DRAIN_IDLE_GRACE_MS,
  handed?: HandedConnections,
): Promise<void> {
  handed?.stop();
  return new Promise<void>((resolve) => {
    const closeAfterAnswer = (_req: unknown, res: { shouldKeepAlive: boolean }) => {
      res.shouldKeepAlive = false;
    };
    server.prependListener('request', closeAfterAnswer);
    let sweeper: NodeJS.Timeout | undefined;
    // An answer that was in progress when the drain began keeps its connection alive: it is closed once idle.
    const grace = setTimeout(() => {
      server.closeIdleConnections();
      sweeper = setInterval(() => server.closeIdleConnections(), IDLE_SWEEP_MS);
      sweeper.unref();
    }, idleGraceMs);
    grace.unref();
    // net.Server's close stops accepting and waits for the open connections; http.Server's would close the idle ones.
    const closed = new Promise<void>((closedResolve) => {
      NetServer.prototype.close.call(server, () => closedResolve());
    });
    void Promise.all([closed, handed?.closed()]).then(() => {
      clearTimeout(grace);
      clearInterval(sweeper);
      server.removeListener('request', closeAfterAnswer);
      resolve();
    });
  });
}
