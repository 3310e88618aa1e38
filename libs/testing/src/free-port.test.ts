import { connect, createServer } from 'node:net';
import { closedPort, freePort } from './free-port';

describe('freePort', () => {
  it('returns a loopback port that can be bound right away', async () => {
    const port = await freePort();
    const server = createServer();

    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', resolve);
    });

    expect(port).toBeGreaterThan(0);
    await new Promise((resolve) => server.close(resolve));
  });
});

describe('closedPort', () => {
  it('returns a port below the ephemeral range that refuses connections', async () => {
    const port = await closedPort();
    expect(port).toBeLessThan(1024);
    const error = await new Promise<NodeJS.ErrnoException>((resolve) => {
      const socket = connect({ host: '127.0.0.1', port });
      socket.once('error', resolve);
      socket.once('connect', () => socket.destroy());
    });
    expect(error.code).toBe('ECONNREFUSED');
  });
});
