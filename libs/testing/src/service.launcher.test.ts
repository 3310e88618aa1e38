import { ServiceStartError } from './infra.error';
import { startService } from './service.launcher';

const entry = 'libs/testing/src/fixtures/listening-service.fixture.ts';

jest.setTimeout(30_000);

describe('startService', () => {
  it('resolves with the URL of the listening line, having passed PORT=0, NODE_ENV=test and the given env', async () => {
    const service = await startService('fixture', { GREETING: 'hello' }, { entry });
    try {
      expect(service.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(service.urls).toEqual({ http: service.url });
      expect(await (await fetch(service.url)).text()).toBe('http');
      const starting = JSON.parse(service.output()[0]!) as Record<string, unknown>;
      expect(starting).toMatchObject({ port: '0', node_env: 'test', greeting: 'hello' });
    } finally {
      await service.stop();
    }
  });

  it('waits for every named listener and maps each name to its URL', async () => {
    const service = await startService(
      'fixture',
      { FIXTURE_LISTENERS: 'http,grpc,metrics' },
      { entry, listeners: ['grpc', 'metrics'] },
    );
    try {
      expect(Object.keys(service.urls).sort()).toEqual(['grpc', 'http', 'metrics']);
      expect(service.url).toBe(service.urls.grpc);
      expect(await (await fetch(service.urls.metrics!)).text()).toBe('metrics');
    } finally {
      await service.stop();
    }
  });

  it('rejects with the recent output when the service exits before listening', async () => {
    const started = startService('fixture', { FIXTURE_MODE: 'crash' }, { entry });

    await expect(started).rejects.toBeInstanceOf(ServiceStartError);
    await expect(started).rejects.toThrow(/fixture exited with code 3 before it was listening/);
    await expect(started).rejects.toThrow(/cannot reach its database/);
  });

  it('rejects and kills the service when a listener never reports within the timeout', async () => {
    const started = startService('fixture', {}, { entry, listeners: ['http', 'grpc'], timeoutMs: 3_000 });

    const error = (await started.catch((e: unknown) => e)) as ServiceStartError;

    expect(error.message).toMatch(/fixture printed no listening line for grpc within 3000 ms/);
    expect(error.output.some((line) => line.includes('"listener":"http"'))).toBe(true);
  });

  it('names the missing entry file when there is no such service', async () => {
    await expect(startService('no-such-service', {}, { timeoutMs: 10_000 })).rejects.toThrow(
      /no-such-service exited with code 1[\s\S]*services\/no-such-service\/src\/main\.ts/,
    );
  });

  it('stop sends SIGTERM and resolves once the service has exited cleanly', async () => {
    const service = await startService('fixture', {}, { entry });

    const exit = await service.stop();

    expect(exit).toEqual({ code: 0, signal: null });
    expect(service.output().some((line) => line.includes('"event":"stopping"'))).toBe(true);
    await expect(service.stop()).resolves.toEqual(exit);
  });

  it('stop escalates to SIGKILL when the service ignores SIGTERM past the grace period', async () => {
    const service = await startService('fixture', { FIXTURE_MODE: 'stubborn' }, { entry, stopGraceMs: 500 });

    await expect(service.stop()).resolves.toEqual({ code: null, signal: 'SIGKILL' });
  });

  it('kill9 ends the service without giving it a chance to clean up', async () => {
    const lines: string[] = [];
    const service = await startService('fixture', {}, { entry, onLine: (line) => lines.push(line) });

    await expect(service.kill9()).resolves.toEqual({ code: null, signal: 'SIGKILL' });
    expect(lines.some((line) => line.includes('"event":"listening"'))).toBe(true);
    expect(lines.some((line) => line.includes('"event":"stopping"'))).toBe(false);
  });
});
