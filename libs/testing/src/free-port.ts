import { randomInt } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { ServiceStartError } from './infra.error';

/** Where Linux says which ports it hands out on its own (listen on port 0, the local end of outgoing connections). */
const EPHEMERAL_RANGE_FILE = '/proc/sys/net/ipv4/ip_local_port_range';
/** The lowest port freePort picks itself, above the well-known and most registered services' ports. */
const LOWEST_PICKED_PORT = 10_000;
const PICK_ATTEMPTS = 20;

function ephemeralRangeStart(): number | undefined {
  try {
    const low = Number(readFileSync(EPHEMERAL_RANGE_FILE, 'utf8').trim().split(/\s+/)[0]);
    return Number.isInteger(low) ? low : undefined;
  } catch {
    return undefined;
  }
}

function bindAndRelease(host: string, port: number): Promise<number | undefined> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once('error', () => resolve(undefined));
    server.listen({ host, port, exclusive: true }, () => {
      const address = server.address();
      const bound = typeof address === 'object' && address ? address.port : undefined;
      server.close(() => resolve(bound));
    });
  });
}

/**
 * A TCP port that was free a moment ago on `host`, for a server that must know its port before it starts. It is
 * picked at random below the ephemeral range where the OS says what that is: the OS hands ephemeral ports to every
 * `listen(0)` and to the local end of every outgoing connection, so a freed ephemeral port is soon taken again on a
 * busy test machine, while a port below the range is taken only by someone who picks it. Another test can still
 * pick the same one first: callers that spawn servers retry on "address in use" (withFreePort).
 */
export async function freePort(host = '127.0.0.1'): Promise<number> {
  const rangeStart = ephemeralRangeStart();
  if (rangeStart !== undefined && rangeStart > LOWEST_PICKED_PORT + PICK_ATTEMPTS) {
    for (let attempt = 0; attempt < PICK_ATTEMPTS; attempt++) {
      const port = await bindAndRelease(host, randomInt(LOWEST_PICKED_PORT, rangeStart));
      if (port !== undefined) return port;
    }
  }
  const port = await bindAndRelease(host, 0);
  if (port === undefined) throw new Error(`the OS gave no port on ${host}`);
  return port;
}

function lostThePort(error: unknown): boolean {
  return (
    error instanceof ServiceStartError && error.output.some((line) => /EADDRINUSE|address already in use/i.test(line))
  );
}

/**
 * Runs `start` with a port from freePort, and again with another one (up to `attempts` times in all) when the
 * service it started died because someone took that port first. `start` must stop whatever it started before it
 * throws.
 */
export async function withFreePort<T>(start: (port: number) => Promise<T>, attempts = 3): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await start(await freePort());
    } catch (error) {
      if (attempt >= attempts || !lostThePort(error)) throw error;
    }
  }
}

/** Ports below the ephemeral range that nothing on a test machine listens on; listen(0) never hands them out. */
const CLOSED_CANDIDATES = [1, 9, 47, 97, 113];

/**
 * A loopback port that refuses connections and stays that way: a freed port (freePort) can be taken by any service
 * a moment later, which turns "the platform refuses connections" into a flaky test.
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
