import type { DecisionRequest, Reject, Verdict } from './verdict';
import { freePort, toolsBinDir } from '@gateway/testing';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { connect, type NatsConnection } from 'nats';
import { failFastWhileDisconnected, NATS_UNAVAILABLE } from './nats-availability';

const ADMIT = { ok: true } as unknown as Verdict;
const REQUEST = { keyHash: 'f'.repeat(64) } as unknown as DecisionRequest;
const HELD: Reject = { ok: false, code: 'rate_limited', holdMs: 500 };

function natsServerBinary(): string {
  const found = [process.env.NATS_SERVER_BIN, '/usr/sbin/nats-server', join(toolsBinDir(), 'nats-server')].find(
    (path): path is string => !!path && existsSync(path),
  );
  if (!found) throw new Error('nats-server not found (NATS_SERVER_BIN, /usr/sbin, scripts/tools/install.sh)');
  return found;
}

async function startServer(port: number): Promise<ChildProcess> {
  const child = spawn(natsServerBinary(), ['-a', '127.0.0.1', '-p', String(port)], { stdio: 'ignore' });
  for (let i = 0; i < 100; i++) {
    const probe = await connect({ servers: `127.0.0.1:${port}`, reconnect: false }).catch(() => undefined);
    if (probe) {
      await probe.close();
      return child;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('nats-server did not start');
}

async function until(condition: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (await condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('decisions while NATS is away (edge-auth, mcp-server)', () => {
  let server: ChildProcess;
  let port: number;
  let nc: NatsConnection;

  beforeEach(async () => {
    port = await freePort();
    server = await startServer(port);
    nc = await connect({ servers: `127.0.0.1:${port}`, reconnectTimeWait: 50, maxReconnectAttempts: -1 });
  });

  afterEach(async () => {
    await nc.close();
    server.kill('SIGKILL');
  });

  it('answers service_unavailable at once while the connection is down, and asks the actor again once it is back', async () => {
    const asked: DecisionRequest[] = [];
    const decisions = failFastWhileDisconnected(
      {
        decide: (request) => {
          asked.push(request);
          return Promise.resolve(ADMIT);
        },
        heldRefusal: () => HELD,
        refund: async () => undefined,
        refundSuggestion: async () => undefined,
      },
      nc,
    );
    expect(await decisions.decide(REQUEST)).toBe(ADMIT);
    expect(decisions.heldRefusal(REQUEST)).toBe(HELD);

    server.kill('SIGKILL');
    await until(async () => (await decisions.decide(REQUEST)) === NATS_UNAVAILABLE, 'the outage to be seen');
    const before = asked.length;
    const started = Date.now();
    expect(await decisions.decide(REQUEST)).toEqual(
      expect.objectContaining({ ok: false, code: 'service_unavailable' }),
    );
    expect(Date.now() - started).toBeLessThan(50);
    expect(asked).toHaveLength(before);
    // Nothing is refused from a hold while the owner cannot be heard: the request gets the outage's 503 instead.
    expect(decisions.heldRefusal(REQUEST)).toBeUndefined();

    server = await startServer(port);
    await until(async () => (await decisions.decide(REQUEST)) === ADMIT, 'the reconnect');
  });
});
