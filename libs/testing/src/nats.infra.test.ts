import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port';
import { InfraUnavailableError } from './infra.error';
import { ensureNats, probeNats, type NatsHandle } from './nats.infra';

jest.setTimeout(30_000);

/** No NATS_URL and a default URL nobody listens on: the situation of a machine without a shared server. */
async function nothingRunning(): Promise<{ env: NodeJS.ProcessEnv; defaultUrl: string }> {
  return { env: { PATH: process.env.PATH }, defaultUrl: `nats://127.0.0.1:${await freePort()}` };
}

describe('ensureNats', () => {
  let started: NatsHandle;
  let dataDir: string;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'nats-infra-test-'));
    started = await ensureNats({ ...(await nothingRunning()), dataDir });
  });

  afterAll(async () => {
    await started?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('starts a nats-server with JetStream on a free loopback port when nothing answers', async () => {
    expect(started.started).toBe(true);
    expect(started.url).toMatch(/^nats:\/\/127\.0\.0\.1:\d+$/);
    await expect(probeNats(started.url)).resolves.toEqual({ state: 'jetstream' });
    expect(await readdir(dataDir)).toContain('jetstream');
  });

  it('attaches to a server that answers on the default URL and leaves it running on stop', async () => {
    const attached = await ensureNats({ env: { PATH: process.env.PATH }, defaultUrl: started.url });

    expect(attached).toMatchObject({ url: started.url, started: false });
    await attached.stop();
    await expect(probeNats(started.url)).resolves.toEqual({ state: 'jetstream' });
  });

  it('uses NATS_URL when it is set, without looking at the default URL', async () => {
    const attached = await ensureNats({ env: { NATS_URL: started.url }, defaultUrl: 'nats://127.0.0.1:1' });

    expect(attached).toMatchObject({ url: started.url, started: false });
  });

  it('says what is wrong when NATS_URL does not answer, instead of starting another server', async () => {
    const url = `nats://127.0.0.1:${await freePort()}`;

    const error = await ensureNats({ env: { NATS_URL: url } }).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(InfraUnavailableError);
    expect((error as Error).message).toContain(`NATS_URL=${url} does not answer`);
  });

  it('stops the server it started, after which nothing answers on its URL', async () => {
    const own = await ensureNats(await nothingRunning());

    await own.stop();

    await expect(probeNats(own.url, 500)).resolves.toMatchObject({ state: 'unreachable' });
  });

  it('reports the binary that could not be run', async () => {
    const error = await ensureNats({ ...(await nothingRunning()), binary: '/nonexistent/nats-server' }).catch(
      (e: unknown) => e,
    );

    expect(error).toBeInstanceOf(InfraUnavailableError);
    expect((error as Error).message).toMatch(
      /could not start nats-server: \/nonexistent\/nats-server could not be run/,
    );
  });
});
