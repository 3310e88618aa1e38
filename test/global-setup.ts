import type { MongoHandle, NatsHandle } from '@gateway/testing';
// jest loads globalSetup outside its module registry, so moduleNameMapper does not apply here and Node would
// resolve @gateway/testing to its unbuilt dist/. This one file imports the lib's source by path instead.
import { ensureMongo } from '../libs/testing/src/mongo.infra';
import { ensureNats } from '../libs/testing/src/nats.infra';

/** What setup started or attached to; teardown stops it. Jest runs both in its main process. */
export interface IntegrationInfra {
  nats: NatsHandle;
  mongo: MongoHandle;
}

declare global {
  var __GATEWAY_INTEGRATION_INFRA__: IntegrationInfra | undefined;
}

const log = (message: string) => process.stderr.write(`[integration] ${message}\n`);

/**
 * Finds or starts NATS and a MongoDB-wire server once per jest run. Test files run in workers forked after
 * this, so they see the addresses through process.env (read them with test/harness).
 */
export default async function globalSetup(): Promise<void> {
  const [nats, mongo] = await Promise.allSettled([ensureNats({ log }), ensureMongo({ log })]);
  if (nats.status === 'rejected' || mongo.status === 'rejected') {
    if (nats.status === 'fulfilled') await nats.value.stop();
    if (mongo.status === 'fulfilled') await mongo.value.stop();
    const reasons = [nats, mongo].flatMap((result) => (result.status === 'rejected' ? [result.reason] : []));
    throw reasons.length === 1 ? reasons[0] : new AggregateError(reasons, 'no NATS and no MongoDB for the tests');
  }
  globalThis.__GATEWAY_INTEGRATION_INFRA__ = { nats: nats.value, mongo: mongo.value };
  process.env.TEST_NATS_URL = nats.value.url;
  process.env.TEST_MONGODB_URI = mongo.value.uri;
}
