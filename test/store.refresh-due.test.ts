import { randomBytes } from 'node:crypto';
import { CredentialCipher, openStore, type PlatformCredentials, type ProviderId, type Store } from '@gateway/store';
import { testDatabaseUri } from './harness';

/**
 * The refresh-token sweep's query on a real MongoDB-wire server: the store keeps each connection's refresh token
 * expiry in the clear and lists only the active connections due by a given instant, plus those written before it kept
 * the expiry (which only opening them tells), so a sweep no longer opens every connection of every customer.
 */
jest.setTimeout(30_000);

const DAY = 86_400_000;
const NOW = Date.parse('2026-11-27T12:00:00Z');
const DUE_BY = new Date(NOW + 7 * DAY);

function tokens(refreshLeftMs?: number, withRefreshToken = true): PlatformCredentials {
  return {
    access_token: `at_${randomBytes(12).toString('hex')}`,
    ...(withRefreshToken ? { refresh_token: `rt_${randomBytes(12).toString('hex')}` } : {}),
    ...(refreshLeftMs === undefined ? {} : { refresh_token_expires_at: new Date(NOW + refreshLeftMs).toISOString() }),
  };
}

describe('connections due for a refresh-token renewal', () => {
  let store: Store;
  let customerId: string;

  beforeAll(async () => {
    store = await openStore(testDatabaseUri(), {
      cipher: CredentialCipher.fromEnv(`k1:${randomBytes(32).toString('base64')}`, 'k1'),
    });
    await store.plans.seedDefaultPlans();
    customerId = (await store.customers.create({ name: 'Sweep', email: 'ops@sweep.example', plan: 'business' }))
      .customer_id;
  });

  afterAll(async () => {
    await store?.connection.dropDatabase();
    await store?.close();
  });

  const connect = async (credentials: PlatformCredentials, provider: ProviderId = 'marketplace') =>
    (await store.connections.create({ customer_id: customerId, provider, external_account_ids: ['1'], credentials }))
      .account_id;
  const due = async (providers: ProviderId[] = ['marketplace'], after?: string, limit = 100) =>
    (await store.connections.listRefreshDue(providers, DUE_BY, after, limit)).map((row) => row.account_id);

  it('lists the connections due and those whose expiry only opening tells, and no others', async () => {
    const soon = await connect(tokens(DAY));
    const exactly = await connect(tokens(7 * DAY));
    const expired = await connect(tokens(-DAY));
    const fresh = await connect(tokens(20 * DAY));
    const noExpiry = await connect(tokens());
    const noRefreshToken = await connect(tokens(DAY, false));
    const otherProvider = await connect(tokens(DAY), 'marketplace-ads');
    const refused = await connect(tokens(DAY));
    await store.connections.setStatus(refused, 'needs_regrant');
    // Written before the store kept the expiry in the clear.
    const legacy = await connect(tokens(20 * DAY));
    await store.connection.db!.collection('connections').updateOne(
      { _id: legacy as never },
      {
        $unset: { refresh_token_expires_at: '' },
      },
    );

    const listed = await due();
    expect(listed).toEqual([soon, exactly, expired, legacy].sort());
    for (const id of [fresh, noExpiry, noRefreshToken, otherProvider, refused]) expect(listed).not.toContain(id);
    expect(await due(['marketplace', 'marketplace-ads'])).toContain(otherProvider);
  });

  it('pages in account id order', async () => {
    const all = await due();
    expect(all.length).toBeGreaterThanOrEqual(4);
    const first = await due(['marketplace'], undefined, 2);
    const rest = await due(['marketplace'], first.at(-1), 100);
    expect([...first, ...rest]).toEqual(all);
  });

  it('moves the expiry with every write of new tokens: a renewal, a re-grant', async () => {
    const old = tokens(DAY);
    const accountId = await connect(old);
    expect(await due()).toContain(accountId);

    const renewed = tokens(30 * DAY);
    expect(await store.connections.replaceCredentials(accountId, old, renewed)).toBe('stored');
    expect(await due()).not.toContain(accountId);

    await store.connections.regrant(accountId, tokens(2 * DAY));
    expect(await due()).toContain(accountId);
  });

  it('keeps only the instant in the clear', async () => {
    const credentials = tokens(DAY);
    const accountId = await connect(credentials);
    const raw = JSON.stringify(
      await store.connection.db!.collection('connections').findOne({ _id: accountId as never }),
    );
    expect(raw).not.toContain(credentials.refresh_token!);
    expect(raw).not.toContain(credentials.access_token);
  });
});
