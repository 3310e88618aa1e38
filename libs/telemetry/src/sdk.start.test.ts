import { context, ROOT_CONTEXT } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { core } from '@opentelemetry/sdk-node';
import { isCallSuppressed } from './sdk.start';

describe('the undici instrumentation hook', () => {
  beforeAll(() => context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable()));
  afterAll(() => context.disable());

  it('leaves alone exactly the calls made with tracing suppressed, as provider-proxy makes its platform calls', async () => {
    expect(isCallSuppressed()).toBe(false);
    const inside = await context.with(core.suppressTracing(ROOT_CONTEXT), async () => {
      await new Promise((resolve) => setImmediate(resolve));
      return isCallSuppressed();
    });
    expect(inside).toBe(true);
    expect(isCallSuppressed()).toBe(false);
  });
});
