import { connect, createServer } from 'node:net';

/**
 * A TCP port that was free a moment ago on `host`. Another process can still take it before the caller
 * binds, so callers that spawn servers retry on "address in use".
 */
export function freePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen({ host, port: 0, exclusive: true }, () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => (port ? resolve(port) : reject(new Error('the OS gave no port'))));
    });
  });
}

/** Ports below the ephemeral range that nothing on a test machine listens on; listen(0) never hands them out. */
const CLOSED_CANDIDATES = [1, 9, 47, 97, 113];

/**
 * A loopback port that refuses connections and stays that way: a freed ephemeral port (freePort) can be handed to
 * any service that binds port 0 a moment later, which turns "the platform refuses connections" into a flaky test.
 */
export async function closedPort(host = '127.0.0.1'): Promise<number> {
  for (const port of CLOSED_CANDIDATES) {
    const refused = await new Promise<boolean>((resolve) => {
      const socket = connect({ host, port });
      socket.once('connect', () => {
        socket.destroy();
        resolve(false);
      });
      socket.once('error', () => resolve(true));
    });
    if (refused) return port;
  }
  throw new Error(`every candidate closed port answers on ${host}: ${CLOSED_CANDIDATES.join(', ')}`);
}
