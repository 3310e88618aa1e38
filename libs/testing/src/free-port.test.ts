import { readFileSync } from 'node:fs';
import { connect, createServer, type Server } from 'node:net';
import { closedPort, freePort, withFreePort } from './free-port';
import { ServiceStartError } from './infra.error';
import { startService, type RunningService } from './service.launcher';

const entry = 'libs/testing/src/fixtures/listening-service.fixture.ts';

function listen(port: number): Promise<Server> {
  const server = createServer();
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
}

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

  it('picks below the ephemeral range, which listen(0) and outgoing connections draw from', async () => {
    const rangeStart = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    const ports = await Promise.all(Array.from({ length: 20 }, () => freePort()));
    for (const port of ports) {
      expect(port).toBeGreaterThanOrEqual(10_000);
      expect(port).toBeLessThan(rangeStart);
    }
  });
});

describe('withFreePort', () => {
  jest.setTimeout(30_000);

  it('starts again on another port when the service died because its port was taken', async () => {
    const taken = await listen(await freePort());
    const tried: number[] = [];
    let service: RunningService | undefined;
    try {
      service = await withFreePort((port) => {
        // The first try behaves as if another process had bound the port it was given first.
        const used = tried.length === 0 ? (taken.address() as { port: number }).port : port;
        tried.push(used);
        return startService('fixture', { PORT: String(used) }, { entry });
      });
      expect(tried).toHaveLength(2);
      expect(service.url).toBe(`http://127.0.0.1:${tried[1]}`);
    } finally {
      await service?.stop();
      await new Promise((resolve) => taken.close(resolve));
    }
  });

  it('gives up after the given number of tries, with the last error', async () => {
    const taken = await listen(await freePort());
    const takenPort = (taken.address() as { port: number }).port;
    let tries = 0;
    try {
      const started = withFreePort(() => {
        tries++;
        return startService('fixture', { PORT: String(takenPort) }, { entry });
      }, 2);
      await expect(started).rejects.toThrow(/EADDRINUSE/);
      expect(tries).toBe(2);
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });

  it('does not try again when the service died of something else', async () => {
    let tries = 0;
    const started = withFreePort(() => {
      tries++;
      return startService('fixture', { FIXTURE_MODE: 'crash' }, { entry });
    });
    await expect(started).rejects.toBeInstanceOf(ServiceStartError);
    expect(tries).toBe(1);
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
