import { createServer } from 'node:net';

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
