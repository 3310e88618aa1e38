/** Stops what test/global-setup.ts started; servers it only attached to keep running. */
export default async function globalTeardown(): Promise<void> {
  const infra = globalThis.__GATEWAY_INTEGRATION_INFRA__;
  globalThis.__GATEWAY_INTEGRATION_INFRA__ = undefined;
  if (!infra) return;
  await Promise.all([infra.nats.stop(), infra.mongo.stop()]);
}
