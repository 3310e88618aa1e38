import mongoose, { type Connection, type ConnectOptions } from 'mongoose';
import { apiKeyActivityModel } from './api-key-activity.model';
import { apiKeyModel } from './api-key.model';
import { ApiKeyRepository } from './api-key.repository';
import { connectionModel } from './connection.model';
import { ConnectionRepository } from './connection.repository';
import type { CredentialCipher } from './credential-cipher';
import { customerModel } from './customer.model';
import { CustomerRepository } from './customer.repository';
import { KeyDecisionLoader } from './key-decision.loader';
import { rekeyLegacyDocuments } from './legacy-ids';
import { monthlyUsageModel } from './monthly-usage.model';
import { MonthlyUsageRepository } from './monthly-usage.repository';
import { planModel } from './plan.model';
import { PlanRepository } from './plan.repository';

export interface OpenStoreOptions {
  /**
   * Create the declared indexes before returning (docs/architecture.md, "Data": created at start), and re-key
   * documents from before the natural ids (legacy-ids.ts).
   */
  ensureIndexes?: boolean;
  /** Only services that seal or open platform credentials (portal-api, provider-proxy) pass one. */
  cipher?: CredentialCipher;
  /** Passed to mongoose.createConnection (timeouts, pool size, dbName). */
  connectOptions?: ConnectOptions;
}

export interface Store {
  connection: Connection;
  plans: PlanRepository;
  customers: CustomerRepository;
  apiKeys: ApiKeyRepository;
  connections: ConnectionRepository;
  usage: MonthlyUsageRepository;
  /** The per-key limiter's loader (key + plan + connections). */
  decisions: KeyDecisionLoader;
  close(): Promise<void>;
}

/**
 * Opens a dedicated connection (never the global mongoose one) so that each service, and each test, picks
 * its database by URI. Models register on that connection with autoIndex off; indexes are created here,
 * once, when asked.
 */
export async function openStore(uri: string, options: OpenStoreOptions = {}): Promise<Store> {
  const { ensureIndexes = true, cipher, connectOptions } = options;
  const connection = mongoose.createConnection(uri, { ...connectOptions, autoIndex: false });
  try {
    await connection.asPromise();
    if (ensureIndexes) await ensureStoreIndexes(connection);
  } catch (error) {
    await connection.close().catch(() => undefined);
    throw error;
  }
  return {
    connection,
    plans: new PlanRepository(connection),
    customers: new CustomerRepository(connection),
    apiKeys: new ApiKeyRepository(connection),
    connections: new ConnectionRepository(connection, cipher),
    usage: new MonthlyUsageRepository(connection),
    decisions: new KeyDecisionLoader(connection),
    close: () => connection.close(),
  };
}

/**
 * Creates every collection and declared index of the store on the connection, and gives documents written before
 * the natural ids theirs (legacy-ids.ts). Idempotent.
 */
export async function ensureStoreIndexes(connection: Connection): Promise<void> {
  const models = [
    planModel(connection),
    customerModel(connection),
    apiKeyModel(connection),
    apiKeyActivityModel(connection),
    connectionModel(connection),
    monthlyUsageModel(connection),
  ];
  for (const model of models) {
    await model.init();
    await model.createIndexes();
  }
  await rekeyLegacyDocuments(connection);
}
