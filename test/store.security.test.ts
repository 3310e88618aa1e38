import { randomBytes } from 'node:crypto';
import {
  ConnectionRepository,
  CredentialCipher,
  CredentialCipherError,
  DEFAULT_PLANS,
  hashApiKey,
  isWellFormedAccountId,
  isWellFormedApiKey,
  isWellFormedKeyId,
  monthlyUsageId,
  openStore,
  usageMonth,
  type CustomerRecord,
  type PlatformCredentials,
  type ProviderId,
  type Store,
} from '@gateway/store';
import { countFinds, testDatabaseUri } from './harness';

jest.setTimeout(30_000);

const K1 = `k1:${randomBytes(32).toString('base64')}`;
const K2 = `k2:${randomBytes(32).toString('base64')}`;

function tokens(label: string): PlatformCredentials {
  return {
    access_token: `at_${label}_${randomBytes(16).toString('hex')}`,
    refresh_token: `rt_${label}_${randomBytes(16).toString('hex')}`,
    access_token_expires_at: '2030-01-01T00:00:00Z',
    scope: 'report.read',
  };
}

describe('store', () => {
  let uri: string;
  let store: Store;
  let customer: CustomerRecord;
  // Every key secret and platform token this file creates; the acceptance test searches the raw collections.
  const secrets: string[] = [];

  beforeAll(async () => {
    uri = testDatabaseUri();
    store = await openStore(uri, { cipher: CredentialCipher.fromEnv(K1, 'k1') });
    await store.plans.seedDefaultPlans();
    customer = await store.customers.create({ name: 'Acme', email: 'Ops@Acme.example', plan: 'trial' });
  });

  afterAll(async () => {
    await store?.connection.dropDatabase();
    await store?.close();
  });

  async function newCustomer(label: string, plan: 'trial' | 'growth' | 'business' = 'trial') {
    return store.customers.create({
      name: label,
      email: `${label}-${randomBytes(4).toString('hex')}@acme.example`,
      plan,
    });
  }

  async function newConnection(provider: ProviderId = 'video-ads', customerId = customer.customer_id) {
    const credentials = tokens(provider);
    secrets.push(credentials.access_token, credentials.refresh_token!);
    const record = await store.connections.create({
      customer_id: customerId,
      provider,
      external_account_ids: ['7000000001'],
      credentials,
    });
    return { record, credentials };
  }

  async function newKey(accountIds: string[] = [], options: { ipAllowlist?: string[]; customerId?: string } = {}) {
    const created = await store.apiKeys.create({
      customer_id: options.customerId ?? customer.customer_id,
      name: 'reporting job',
      providers: ['video-ads', 'marketplace'],
      account_ids: accountIds,
      ip_allowlist: options.ipAllowlist ?? [],
    });
    secrets.push(created.secret);
    return created;
  }

  describe('setup', () => {
    it('creates the declared unique indexes at start (the natural ids are the _ids, unique by themselves)', async () => {
      const db = store.connection.db!;
      const uniqueKeys = async (collection: string) =>
        (await db.collection(collection).indexes())
          .filter((index) => index.unique)
          .map((index) => Object.keys(index.key).join('+'))
          .sort();
      expect(await uniqueKeys('plans')).toEqual([]);
      expect(await uniqueKeys('customers')).toEqual(['email']);
      expect(await uniqueKeys('api_keys')).toEqual(['key_id']);
      expect(await uniqueKeys('api_key_activity')).toEqual([]);
      expect(await uniqueKeys('connections')).toEqual([]);
      expect(await uniqueKeys('monthly_usage')).toEqual(['key_id+month']);
    });

    it('seeds the documented default plans, idempotently', async () => {
      await store.plans.seedDefaultPlans();
      expect(await store.plans.list()).toEqual(Object.values(DEFAULT_PLANS));
      expect(await store.plans.findByName('business')).toEqual(DEFAULT_PLANS.business);
      expect(await store.plans.findByName('platinum')).toBeNull();
    });

    it('stores customer emails lowercased and refuses a second customer with the same email', async () => {
      expect(customer.email).toBe('ops@acme.example');
      expect(customer.customer_id).toMatch(/^cus_[0-9A-Za-z]{16}$/);
      expect((await store.customers.findByEmail('OPS@acme.example'))?.customer_id).toBe(customer.customer_id);
      await expect(
        store.customers.create({ name: 'Other', email: 'ops@ACME.example', plan: 'trial' }),
      ).rejects.toMatchObject({ name: 'StoreError', code: 'duplicate' });
    });
  });

  describe('connections', () => {
    // A connection whose ciphertext was swapped for another's: it stays undecryptable for the rest of the file.
    let tamperedAccountId = '';

    it('creates a connection with a new account id and hands its tokens only to loadCredentials', async () => {
      const { record, credentials } = await newConnection();
      expect(isWellFormedAccountId(record.account_id)).toBe(true);
      expect(record).toMatchObject({ provider: 'video-ads', status: 'active', credentials_kid: 'k1' });
      expect(JSON.stringify(record)).not.toContain(credentials.access_token);
      const found = await store.connections.findByAccountId(record.account_id);
      expect(found).toEqual(record);
      expect(await store.connections.loadCredentials(record.account_id)).toEqual(credentials);
    });

    it('keeps the account id on re-grant and replaces the tokens (spec 3)', async () => {
      const { record } = await newConnection();
      await store.connections.setStatus(record.account_id, 'needs_regrant');
      expect(await store.connections.loadCredentials(record.account_id)).toBeNull();

      const renewed = tokens('regrant');
      secrets.push(renewed.access_token, renewed.refresh_token!);
      const regranted = await store.connections.regrant(record.account_id, renewed, ['7000000002']);

      expect(regranted).toMatchObject({
        account_id: record.account_id,
        status: 'active',
        external_account_ids: ['7000000002'],
      });
      expect(regranted!.granted_at.getTime()).toBeGreaterThanOrEqual(record.granted_at.getTime());
      expect(await store.connections.loadCredentials(record.account_id)).toEqual(renewed);
      expect(await store.connections.regrant('acct_00000000000000000000', renewed)).toBeNull();
    });

    it('never hands out tokens of a revoked connection', async () => {
      const { record } = await newConnection();
      await store.connections.setStatus(record.account_id, 'revoked');
      expect(await store.connections.loadCredentials(record.account_id)).toBeNull();
    });

    it('refuses credentials copied from another connection (the AAD is the account id)', async () => {
      const a = await newConnection();
      const b = await newConnection();
      const raw = store.connection.db!.collection('connections');
      const sealedA = (await raw.findOne({ account_id: a.record.account_id }))!.credentials;
      await raw.updateOne({ account_id: b.record.account_id }, { $set: { credentials: sealedA } });

      await expect(store.connections.loadCredentials(b.record.account_id)).rejects.toThrow(CredentialCipherError);
      tamperedAccountId = b.record.account_id;
    });

    it('refuses invalid credentials without echoing them', async () => {
      const attempt = store.connections.create({
        customer_id: customer.customer_id,
        provider: 'video-ads',
        external_account_ids: [],
        credentials: { access_token: 'x', access_token_expires_at: 'soon-secret' },
      });
      await expect(attempt).rejects.toMatchObject({ code: 'invalid_input' });
      await expect(attempt).rejects.not.toThrow(/soon-secret/);
    });

    it('counts connections that are not revoked against the allowance', async () => {
      const other = await newCustomer('counting');
      const first = await newConnection('marketplace', other.customer_id);
      await newConnection('marketplace-ads', other.customer_id);
      await store.connections.setStatus(first.record.account_id, 'revoked');

      expect(await store.connections.countByCustomer(other.customer_id)).toBe(1);
      expect(await store.connections.countByCustomer(other.customer_id, ['active', 'revoked', 'needs_regrant'])).toBe(
        2,
      );
      expect((await store.connections.listByCustomer(other.customer_id)).map((c) => c.provider)).toEqual([
        'marketplace',
        'marketplace-ads',
      ]);
    });

    it('reseals every connection under a new active key, after which the retired key can leave the ring', async () => {
      const { record, credentials } = await newConnection();
      const rotating = new ConnectionRepository(store.connection, CredentialCipher.fromEnv(`${K1},${K2}`, 'k2'));

      const result = await rotating.resealAll();

      expect(result.resealed).toBeGreaterThan(0);
      expect(result.failed).toEqual([tamperedAccountId]);
      expect((await store.connections.findByAccountId(record.account_id))?.credentials_kid).toBe('k2');
      const k2Only = new ConnectionRepository(store.connection, CredentialCipher.fromEnv(K2, 'k2'));
      expect(await k2Only.loadCredentials(record.account_id)).toEqual(credentials);
      expect(await rotating.resealAll()).toEqual({ resealed: 0, skipped: 0, failed: [tamperedAccountId] });
    });

    it('stores renewed tokens only in place of the ones the renewal started from', async () => {
      const { record, credentials } = await newConnection();
      const accountId = record.account_id;
      const issued = (label: string) => {
        const next = tokens(label);
        secrets.push(next.access_token, next.refresh_token!);
        return next;
      };

      const renewed = issued('renewed');
      expect(await store.connections.replaceCredentials(accountId, credentials, renewed)).toBe('stored');
      expect(await store.connections.loadCredentials(accountId)).toEqual(renewed);

      // A second renewal from the same old tokens (another replica's, late): the newer tokens stay.
      expect(await store.connections.replaceCredentials(accountId, credentials, issued('late'))).toBe('superseded');
      expect(await store.connections.loadCredentials(accountId)).toEqual(renewed);

      // The customer re-grants while the old grant is being renewed: the re-grant stays.
      const regranted = issued('regrant');
      await store.connections.regrant(accountId, regranted);
      expect(await store.connections.replaceCredentials(accountId, renewed, issued('old-grant'))).toBe('superseded');
      expect(await store.connections.loadCredentials(accountId)).toEqual(regranted);

      // A key rotation re-encrypts the same tokens: a renewal that started before it is still stored.
      const rotating = new ConnectionRepository(store.connection, CredentialCipher.fromEnv(`${K1},${K2}`, 'k2'));
      await rotating.resealAll();
      expect((await rotating.findByAccountId(accountId))?.credentials_kid).toBe('k2');
      const afterRotation = issued('after-rotation');
      expect(await rotating.replaceCredentials(accountId, regranted, afterRotation)).toBe('stored');
      expect(await rotating.loadCredentials(accountId)).toEqual(afterRotation);

      await rotating.setStatus(accountId, 'revoked');
      expect(await rotating.replaceCredentials(accountId, afterRotation, issued('revoked'))).toBe('inactive');
    });

    it('refuses credential operations on a store opened without a cipher', async () => {
      const { record } = await newConnection();
      const withoutCipher = await openStore(uri, { ensureIndexes: false });
      try {
        await expect(withoutCipher.connections.loadCredentials(record.account_id)).rejects.toMatchObject({
          code: 'no_cipher',
        });
        expect((await withoutCipher.connections.findByAccountId(record.account_id))?.account_id).toBe(
          record.account_id,
        );
      } finally {
        await withoutCipher.close();
      }
    });
  });

  describe('api keys', () => {
    it('returns the secret once and stores only its hash', async () => {
      const { record } = await newConnection();
      const { key, secret } = await newKey([record.account_id], { ipAllowlist: ['203.0.113.9', '10.1.2.3/8'] });

      expect(isWellFormedApiKey(secret)).toBe(true);
      expect(isWellFormedKeyId(key.key_id)).toBe(true);
      expect(secret.includes(key.key_id.slice('dg_live_'.length))).toBe(false);
      expect(key).toMatchObject({
        hash: hashApiKey(secret),
        status: 'active',
        source: 'portal',
        oauth: null,
        account_ids: [record.account_id],
        ip_allowlist: ['203.0.113.9/32', '10.0.0.0/8'],
        replaced_by: null,
        revoked_at: null,
      });
      expect(JSON.stringify(key)).not.toContain(secret);
      expect(await store.apiKeys.findByHash(hashApiKey(secret))).toEqual(key);
      expect(await store.apiKeys.findByKeyId(key.key_id)).toEqual(key);
      expect(await store.apiKeys.findByHash(hashApiKey(`${secret}x`))).toBeNull();
      expect(await store.apiKeys.findByHash(secret)).toBeNull();
    });

    it('lists a customer keys without their hashes', async () => {
      const owner = await newCustomer('lister');
      const created = await newKey([], { customerId: owner.customer_id });
      const listed = await store.apiKeys.listByCustomer(owner.customer_id);
      expect(listed.map((k) => k.key_id)).toEqual([created.key.key_id]);
      expect(listed[0]).not.toHaveProperty('hash');
    });

    it('refuses connections of another customer, unknown providers, bad CIDRs and operator-shaped ids', async () => {
      const stranger = await newCustomer('stranger');
      const foreign = await newConnection('video-ads', stranger.customer_id);
      await expect(newKey([foreign.record.account_id])).rejects.toMatchObject({ code: 'invalid_input' });
      await expect(newKey([], { ipAllowlist: ['10.0.0.0/33'] })).rejects.toMatchObject({ code: 'invalid_input' });
      await expect(
        store.apiKeys.create({ customer_id: customer.customer_id, name: 'x', providers: ['fax' as ProviderId] }),
      ).rejects.toMatchObject({ code: 'invalid_input' });
      await expect(store.apiKeys.findByKeyId({ $ne: null } as unknown as string)).rejects.toMatchObject({
        code: 'invalid_input',
      });

      const { key } = await newKey();
      await expect(store.apiKeys.setAccounts(key.key_id, [foreign.record.account_id])).rejects.toMatchObject({
        code: 'invalid_input',
      });
    });

    it('creates OAuth keys with their client and subject', async () => {
      const created = await store.apiKeys.create({
        customer_id: customer.customer_id,
        name: 'Chat assistant (OAuth)',
        providers: ['video-ads'],
        source: 'oauth',
        oauth: { client_id: 'chat-assistant', subject: 'user-1' },
      });
      secrets.push(created.secret);
      expect(created.key).toMatchObject({ source: 'oauth', oauth: { client_id: 'chat-assistant', subject: 'user-1' } });
      await expect(
        store.apiKeys.create({ customer_id: customer.customer_id, name: 'x', providers: [], source: 'oauth' }),
      ).rejects.toMatchObject({ code: 'invalid_input' });
    });

    it('rotates a key: same settings, new secret once, old key revoked with replaced_by (spec 3)', async () => {
      const { record } = await newConnection();
      const original = await newKey([record.account_id], { ipAllowlist: ['2001:db8::/32'] });

      const rotated = await store.apiKeys.rotate(original.key.key_id);
      secrets.push(rotated!.secret);

      expect(rotated!.secret).not.toBe(original.secret);
      expect(rotated!.key.key_id).not.toBe(original.key.key_id);
      expect(rotated!.key).toMatchObject({
        status: 'active',
        name: original.key.name,
        customer_id: original.key.customer_id,
        providers: original.key.providers,
        account_ids: [record.account_id],
        ip_allowlist: ['2001:db8::/32'],
        hash: hashApiKey(rotated!.secret),
      });
      expect(rotated!.replaced).toMatchObject({
        key_id: original.key.key_id,
        hash: original.key.hash,
        status: 'revoked',
        replaced_by: rotated!.key.key_id,
      });
      expect((await store.apiKeys.findByHash(hashApiKey(original.secret)))?.status).toBe('revoked');
      expect(await store.apiKeys.rotate(original.key.key_id)).toBeNull();
    });

    it('lets exactly one of two concurrent rotations win', async () => {
      const owner = await newCustomer('rotator');
      const original = await newKey([], { customerId: owner.customer_id });

      const results = await Promise.all([
        store.apiKeys.rotate(original.key.key_id),
        store.apiKeys.rotate(original.key.key_id),
      ]);

      const winners = results.filter((result) => result !== null);
      winners.forEach((winner) => secrets.push(winner.secret));
      expect(winners).toHaveLength(1);
      // The loser's key was removed again: the customer holds the revoked original and one new key.
      const keys = await store.apiKeys.listByCustomer(owner.customer_id);
      expect(keys.map((k) => [k.key_id, k.status, k.replaced_by])).toEqual([
        [original.key.key_id, 'revoked', winners[0]!.key.key_id],
        [winners[0]!.key.key_id, 'active', null],
      ]);
    });

    it('revokes a key immediately and idempotently', async () => {
      const { key } = await newKey();
      const revoked = await store.apiKeys.revoke(key.key_id);
      expect(revoked).toMatchObject({ status: 'revoked', replaced_by: null });
      expect(revoked!.revoked_at).toBeInstanceOf(Date);
      expect(await store.apiKeys.revoke(key.key_id)).toEqual(revoked);
      expect(await store.apiKeys.revoke('dg_live_00000000')).toBeNull();
      expect(await store.apiKeys.setIpAllowlist(key.key_id, ['10.0.0.0/8'])).toBeNull();
    });

    it('replaces the allowlist and the connections of an active key', async () => {
      const a = await newConnection();
      const b = await newConnection('marketplace');
      const { key } = await newKey([a.record.account_id]);

      expect(
        (await store.apiKeys.setIpAllowlist(key.key_id, ['::ffff:10.0.0.1', '192.0.2.0/24']))?.ip_allowlist,
      ).toEqual(['::ffff:10.0.0.1/128', '192.0.2.0/24']);
      expect(
        (await store.apiKeys.setAccounts(key.key_id, [b.record.account_id, a.record.account_id]))?.account_ids,
      ).toEqual([b.record.account_id, a.record.account_id]);
      await expect(store.apiKeys.setIpAllowlist(key.key_id, ['nope'])).rejects.toMatchObject({ code: 'invalid_input' });
    });

    it('records last use at most once a minute', async () => {
      const { key } = await newKey();
      const first = new Date('2030-05-01T10:00:00Z');
      await store.apiKeys.touchLastUsed(key.key_id, first);
      await store.apiKeys.touchLastUsed(key.key_id, new Date(first.getTime() + 30_000));
      expect((await store.apiKeys.findByKeyId(key.key_id))?.last_used_at).toEqual(first);
      const later = new Date(first.getTime() + 61_000);
      await store.apiKeys.touchLastUsed(key.key_id, later);
      expect((await store.apiKeys.findByKeyId(key.key_id))?.last_used_at).toEqual(later);
    });
    it('never loses a revoke to a last-use write from another process', async () => {
      // On FerretDB two processes updating one document lose writes; last use is kept in its own document.
      const actorProcess = await openStore(uri, { ensureIndexes: false });
      try {
        const keys = await Promise.all(Array.from({ length: 20 }, () => newKey()));
        await Promise.all(
          keys.flatMap(({ key }) => [
            store.apiKeys.revoke(key.key_id),
            actorProcess.apiKeys.touchLastUsed(key.key_id, new Date('2030-05-01T10:00:00Z')),
          ]),
        );
        const after = await Promise.all(keys.map(({ key }) => store.apiKeys.findByKeyId(key.key_id)));
        expect(after.map((k) => k?.status)).toEqual(keys.map(() => 'revoked'));
        expect(after.map((k) => k?.last_used_at)).toEqual(keys.map(() => new Date('2030-05-01T10:00:00Z')));
        const raw = await store.connection.db!.collection('api_keys').findOne({ key_id: keys[0]!.key.key_id });
        expect(raw).not.toHaveProperty('last_used_at');
      } finally {
        await actorProcess.close();
      }
    });
  });

  describe('decision records', () => {
    it('joins a key with its plan limits and its connections', async () => {
      const owner = await newCustomer('decider', 'growth');
      const videoAds = await newConnection('video-ads', owner.customer_id);
      const shop = await newConnection('marketplace', owner.customer_id);
      await store.connections.setStatus(shop.record.account_id, 'needs_regrant');
      const { key, secret } = await newKey([videoAds.record.account_id, shop.record.account_id], {
        customerId: owner.customer_id,
        ipAllowlist: ['198.51.100.0/24'],
      });

      expect(await store.decisions.loadDecisionRecord(hashApiKey(secret))).toEqual({
        key_id: key.key_id,
        customer_id: owner.customer_id,
        status: 'active',
        source: 'portal',
        providers: ['video-ads', 'marketplace'],
        account_ids: [videoAds.record.account_id, shop.record.account_id],
        connections: [
          { account_id: videoAds.record.account_id, provider: 'video-ads', status: 'active' },
          { account_id: shop.record.account_id, provider: 'marketplace', status: 'needs_regrant' },
        ],
        ip_allowlist: ['198.51.100.0/24'],
        plan: DEFAULT_PLANS.growth,
      });
    });

    it('keeps only the key providers that the plan allows (spec 5.1 rule 4)', async () => {
      const { secret } = await newKey();
      await store.plans.seedDefaultPlans([{ ...DEFAULT_PLANS.trial, providers: ['marketplace', 'search-ads'] }]);
      try {
        expect((await store.decisions.loadDecisionRecord(hashApiKey(secret)))?.providers).toEqual(['marketplace']);
      } finally {
        await store.plans.seedDefaultPlans();
      }
    });

    it('leaves out connections of another customer even when the key document names them (spec 5.1 rule 3)', async () => {
      const owner = await newCustomer('named');
      const own = await newConnection('video-ads', owner.customer_id);
      const foreign = await newConnection('video-ads');
      const { key } = await newKey([own.record.account_id], { customerId: owner.customer_id });
      await store.connection
        .db!.collection<{ _id: string; account_ids: string[] }>('api_keys')
        .updateOne({ _id: key.hash }, { $set: { account_ids: [foreign.record.account_id, own.record.account_id] } });

      expect((await store.decisions.loadDecisionRecord(key.hash))?.account_ids).toEqual([own.record.account_id]);
    });

    it('loads keys with many connections in the key order', async () => {
      const owner = await newCustomer('many', 'business');
      const records = [];
      for (let i = 0; i < 20; i += 1) records.push((await newConnection('video-ads', owner.customer_id)).record);
      const accountIds = records.map((record) => record.account_id).reverse();
      const { key } = await newKey(accountIds, { customerId: owner.customer_id });

      const record = await store.decisions.loadDecisionRecord(key.hash);
      expect(record?.account_ids).toEqual(accountIds);
      expect(record?.connections.map((c) => c.account_id)).toEqual(accountIds);
    });

    it('returns revoked keys with their status, and nothing for unknown or malformed hashes', async () => {
      const { key, secret } = await newKey();
      await store.apiKeys.revoke(key.key_id);
      expect((await store.decisions.loadDecisionRecord(hashApiKey(secret)))?.status).toBe('revoked');
      expect(await store.decisions.loadDecisionRecord(hashApiKey('dg_live_unknown'))).toBeNull();
      expect(await store.decisions.loadDecisionRecord('not-a-hash')).toBeNull();
      expect(await store.decisions.loadDecisionRecord(secret)).toBeNull();
    });

    it('loads many keys in one batch as each alone, in a few queries, and rejects only a key whose plan is missing', async () => {
      const named = await newCustomer('batch-named', 'growth');
      const followers = [await newCustomer('batch-follow-a', 'business'), await newCustomer('batch-follow-b')];
      const namedConnections = [];
      for (let i = 0; i < 3; i += 1)
        namedConnections.push((await newConnection('video-ads', named.customer_id)).record);
      const followed = [];
      for (const follower of followers) {
        const oldest = await newConnection('video-ads', follower.customer_id);
        const revoked = await newConnection('marketplace', follower.customer_id);
        await store.connections.setStatus(revoked.record.account_id, 'revoked');
        const regrant = await newConnection('marketplace', follower.customer_id);
        await store.connections.setStatus(regrant.record.account_id, 'needs_regrant');
        followed.push([oldest.record.account_id, regrant.record.account_id]);
      }
      const hashes: string[] = [];
      for (let i = 0; i < 20; i += 1) {
        const accountIds = namedConnections.slice(i % 3).map((record) => record.account_id);
        hashes.push((await newKey(accountIds, { customerId: named.customer_id })).key.hash);
      }
      for (const [index, follower] of followers.entries()) {
        const created = await store.apiKeys.create({
          customer_id: follower.customer_id,
          name: 'assistant',
          providers: index === 0 ? ['video-ads', 'marketplace'] : ['video-ads'],
          follows_connections: true,
        });
        secrets.push(created.secret);
        hashes.push(created.key.hash);
      }
      const orphan = await newCustomer('batch-orphan', 'growth');
      const orphanKey = (await newKey([], { customerId: orphan.customer_id })).key.hash;
      await store.connection
        .db!.collection<{ _id: string; plan: string }>('customers')
        .updateOne({ _id: orphan.customer_id }, { $set: { plan: 'no-such-plan' } });
      const unknown = hashApiKey('dg_live_not_a_key_of_this_store');
      const asked = [...hashes, orphanKey, unknown, 'not-a-hash', hashes[0]!];

      const queries = countFinds(store.connection);
      const outcomes = await store.decisions.loadDecisionRecords(asked);
      const sent = queries.stop();

      // One `$in` for the 23 keys (past 16 ids); one `{ _id }` query for each of the 4 customers, 3 named connections
      // and 4 plans (up to 16); one query for the followers' connections. Loaded one by one: 4 or more a key.
      expect(sent).toBe(1 + 4 + 3 + 1 + 4);
      expect([...outcomes.keys()].sort()).toEqual([...new Set(asked)].sort());
      for (const hash of hashes) {
        expect(outcomes.get(hash)).toEqual({
          status: 'fulfilled',
          value: await store.decisions.loadDecisionRecord(hash),
        });
      }
      const [followerA, followerB] = hashes.slice(20).map((hash) => outcomes.get(hash));
      expect(followerA).toMatchObject({ status: 'fulfilled', value: { account_ids: followed[0] } });
      expect(followerB).toMatchObject({ status: 'fulfilled', value: { account_ids: [followed[1]![0]] } });
      expect(outcomes.get(hashes[1]!)).toMatchObject({
        status: 'fulfilled',
        value: {
          account_ids: namedConnections.slice(1).map((record) => record.account_id),
          plan: DEFAULT_PLANS.growth,
        },
      });
      expect(outcomes.get(orphanKey)).toMatchObject({ status: 'rejected', reason: { code: 'integrity' } });
      await expect(store.decisions.loadDecisionRecord(orphanKey)).rejects.toMatchObject({ code: 'integrity' });
      expect(outcomes.get(unknown)).toEqual({ status: 'fulfilled', value: null });
      expect(outcomes.get('not-a-hash')).toEqual({ status: 'fulfilled', value: null });
    });
  });

  describe('monthly usage', () => {
    it('counts requests per UTC month and day in one document per key and month', async () => {
      const keyId = 'dg_live_usage001';
      await store.usage.add(keyId, new Date('2030-03-31T23:59:59Z'), 2);
      await store.usage.add(keyId, new Date('2030-04-01T00:00:00Z'));
      await store.usage.add(keyId, new Date('2030-04-01T12:00:00Z'), 4);
      const april = await store.usage.add(keyId, new Date('2030-04-15T08:00:00Z'));

      expect(april).toEqual({ key_id: keyId, month: '2030-04', used: 6, days: { '01': 5, '15': 1 } });
      expect(await store.usage.get(keyId, '2030-03')).toEqual({
        key_id: keyId,
        month: '2030-03',
        used: 2,
        days: { '31': 2 },
      });
      expect(await store.usage.get(keyId, '2030-05')).toEqual({ key_id: keyId, month: '2030-05', used: 0, days: {} });
      expect(await store.usage.get(keyId, usageMonth(new Date('2030-04-09T00:00:00Z')))).toEqual(april);
      await expect(store.usage.get(keyId, '2030-13')).rejects.toMatchObject({ code: 'invalid_input' });
    });

    it('loses no count when the first writes of a month race', async () => {
      const keyId = 'dg_live_usage002';
      const at = new Date('2030-06-10T10:00:00Z');
      await Promise.all(Array.from({ length: 25 }, () => store.usage.add(keyId, at)));
      expect(await store.usage.get(keyId, '2030-06')).toMatchObject({ used: 25, days: { '10': 25 } });
      expect(await store.connection.db!.collection('monthly_usage').countDocuments({ key_id: keyId })).toBe(1);
    });

    it("sums a customer's month from each key's own count, so units carried over by rotation count once", async () => {
      const month = '2030-07';
      const raw = store.connection.db!.collection<{ _id: string } & Record<string, unknown>>('monthly_usage');
      // dg_live_share001 was rotated into dg_live_share002 before counts were the customer's: rotation then copied
      // its 7 units into the new key's document as carried_over; 002 then counted 5 more.
      await store.usage.add('dg_live_share001', new Date('2030-07-02T10:00:00Z'), 7);
      await raw.insertOne({
        _id: monthlyUsageId('dg_live_share002', month),
        key_id: 'dg_live_share002',
        month,
        used: 7,
        reserved: 7,
        suggestions_used: 0,
        carried_over: 7,
        days: {},
        epoch: 0,
      });
      await store.usage.add('dg_live_share002', new Date('2030-07-03T10:00:00Z'), 5);
      // Written as the quota-actor's ledger writes it: suggestions, no carried_over field at all.
      await raw.insertOne({
        _id: monthlyUsageId('dg_live_share003', month),
        key_id: 'dg_live_share003',
        month,
        used: 4,
        reserved: 4,
        suggestions_used: 2,
        days: { '04': 4 },
        epoch: 1,
      });
      // A carried_over above used (never written, but never a negative share either).
      await raw.insertOne({
        _id: monthlyUsageId('dg_live_share004', month),
        key_id: 'dg_live_share004',
        month,
        used: 1,
        carried_over: 3,
        days: {},
      });

      const keyIds = ['dg_live_share001', 'dg_live_share002', 'dg_live_share003', 'dg_live_share004', 'dg_live_none0'];
      expect(await store.usage.customerMonth(keyIds, month)).toEqual({
        month,
        used: 16,
        suggestions_used: 2,
        keys: [
          { key_id: 'dg_live_share001', used: 7, suggestions_used: 0, days: { '02': 7 } },
          { key_id: 'dg_live_share002', used: 5, suggestions_used: 0, days: { '03': 5 } },
          { key_id: 'dg_live_share003', used: 4, suggestions_used: 2, days: { '04': 4 } },
          { key_id: 'dg_live_share004', used: 0, suggestions_used: 0, days: {} },
          { key_id: 'dg_live_none0', used: 0, suggestions_used: 0, days: {} },
        ],
      });
      expect(await store.usage.get('dg_live_share002', month)).toMatchObject({ used: 12 });
      expect(await store.usage.customerMonth(['dg_live_share001'], '2030-08')).toEqual({
        month: '2030-08',
        used: 0,
        suggestions_used: 0,
        keys: [{ key_id: 'dg_live_share001', used: 0, suggestions_used: 0, days: {} }],
      });
      expect(await store.usage.customerMonth([], month)).toEqual({ month, used: 0, suggestions_used: 0, keys: [] });
      await expect(store.usage.customerMonth(keyIds, '2030-7')).rejects.toMatchObject({ code: 'invalid_input' });
      await expect(store.usage.customerMonth([{ $ne: null }] as unknown as string[], month)).rejects.toMatchObject({
        code: 'invalid_input',
      });
    });
  });

  describe('natural ids', () => {
    it('keeps every document under its natural id, the one lookup FerretDB does not answer by a scan', async () => {
      const owner = await newCustomer('natural');
      const { record } = await newConnection('video-ads', owner.customer_id);
      const { key } = await newKey([record.account_id], { customerId: owner.customer_id });
      await store.apiKeys.touchLastUsed(key.key_id, new Date('2030-05-01T10:00:00Z'));
      await store.usage.add(key.key_id, new Date('2030-05-02T10:00:00Z'));

      const db = store.connection.db!;
      const byId = (collection: string, id: string) => db.collection<{ _id: string }>(collection).findOne({ _id: id });
      expect(await byId('customers', owner.customer_id)).toMatchObject({ customer_id: owner.customer_id });
      expect(await byId('connections', record.account_id)).toMatchObject({ account_id: record.account_id });
      expect(await byId('api_keys', key.hash)).toMatchObject({ key_id: key.key_id, hash: key.hash });
      expect(await byId('api_key_activity', key.key_id)).toMatchObject({ key_id: key.key_id });
      expect(await byId('monthly_usage', monthlyUsageId(key.key_id, '2030-05'))).toMatchObject({
        key_id: key.key_id,
        month: '2030-05',
        used: 1,
      });
      const plans = await db.collection('plans').find({}).toArray();
      expect(plans.map((plan) => plan._id).sort()).toEqual(plans.map((plan) => plan.name).sort());
    });

    it('re-keys documents written before natural ids once at start, so old keys, customers and usage keep working', async () => {
      const legacyUri = testDatabaseUri('store_legacy');
      const cipher = CredentialCipher.fromEnv(K1, 'k1');
      const old = await openStore(legacyUri, { cipher });
      const stores: Store[] = [old];
      try {
        await old.plans.seedDefaultPlans();
        const owner = await old.customers.create({ name: 'Old', email: 'old@acme.example', plan: 'growth' });
        const credentials = tokens('legacy');
        const connection = await old.connections.create({
          customer_id: owner.customer_id,
          provider: 'video-ads',
          external_account_ids: ['7000000009'],
          credentials,
        });
        const { key, secret } = await old.apiKeys.create({
          customer_id: owner.customer_id,
          name: 'old key',
          providers: ['video-ads'],
          account_ids: [connection.account_id],
        });
        await old.apiKeys.touchLastUsed(key.key_id, new Date('2030-05-01T10:00:00Z'));
        await old.usage.add(key.key_id, new Date('2030-05-02T10:00:00Z'), 3);
        const month = '2030-05';

        // The documents as the store wrote them before: ObjectId _ids, unique indexes on the id fields.
        const db = old.connection.db!;
        const idFields: Record<string, string[]> = {
          plans: ['name'],
          customers: ['customer_id'],
          connections: ['account_id'],
          api_keys: ['hash'],
          api_key_activity: ['key_id'],
          monthly_usage: ['key_id', 'month'],
        };
        for (const [name, fields] of Object.entries(idFields)) {
          const collection = db.collection(name);
          const docs = await collection.find({}).toArray();
          await collection.deleteMany({});
          await collection.insertMany(docs.map(({ _id, ...fieldsOf }) => ({ ...fieldsOf })));
          await collection.createIndex(Object.fromEntries(fields.map((field) => [field, 1])), { unique: true });
        }
        const notYet = await openStore(legacyUri, { cipher, ensureIndexes: false });
        stores.push(notYet);
        expect(await notYet.apiKeys.findByHash(key.hash)).toBeNull();

        // Two services starting together: each document is re-keyed once.
        const [a, b] = await Promise.all([openStore(legacyUri, { cipher }), openStore(legacyUri, { cipher })]);
        stores.push(a, b);
        for (const [name] of Object.entries(idFields)) {
          expect(await db.collection(name).countDocuments({ _id: { $type: 'objectId' } })).toBe(0);
        }
        expect(await db.collection('plans').countDocuments({})).toBe(3);
        for (const name of ['customers', 'connections', 'api_keys', 'api_key_activity', 'monthly_usage']) {
          expect(await db.collection(name).countDocuments({})).toBe(1);
        }
        expect(await a.apiKeys.findByHash(hashApiKey(secret))).toEqual({
          ...key,
          last_used_at: new Date('2030-05-01T10:00:00Z'),
        });
        expect(await b.decisions.loadDecisionRecord(key.hash)).toMatchObject({
          key_id: key.key_id,
          account_ids: [connection.account_id],
          plan: DEFAULT_PLANS.growth,
        });
        expect(await a.usage.get(key.key_id, month)).toMatchObject({ used: 3 });
        expect(await a.connections.loadCredentials(connection.account_id)).toEqual(credentials);

        // What the local stack's demo seed does on an old database: the customer by email, its connection
        // re-granted, a key for it.
        const found = await a.customers.findByEmail('old@acme.example');
        const [existing] = await a.connections.listByCustomer(found!.customer_id);
        expect(await a.connections.regrant(existing!.account_id, tokens('regrant'))).toMatchObject({
          status: 'active',
        });
        const fresh = await a.apiKeys.create({
          customer_id: found!.customer_id,
          name: 'Demo key',
          providers: ['video-ads'],
          account_ids: [existing!.account_id],
        });
        expect((await a.decisions.loadDecisionRecord(fresh.key.hash))?.account_ids).toEqual([existing!.account_id]);
      } finally {
        await old.connection.dropDatabase();
        for (const opened of stores) await opened.close();
      }
    });
  });

  describe('security acceptance', () => {
    it('keeps every API key secret and platform token out of every stored document', async () => {
      // Make sure every kind of document exists before searching.
      const { record } = await newConnection('search-ads');
      await newKey([record.account_id]);
      expect(secrets.length).toBeGreaterThan(20);

      const db = store.connection.db!;
      const collections = (await db.listCollections().toArray()).map((c) => c.name).sort();
      expect(collections).toEqual(
        expect.arrayContaining(['api_keys', 'connections', 'customers', 'monthly_usage', 'plans']),
      );

      const dump: string[] = [];
      for (const name of collections) {
        for (const doc of await db.collection(name).find({}).toArray()) dump.push(JSON.stringify(doc));
      }
      const everything = dump.join('\n');
      expect(dump.length).toBeGreaterThan(30);

      for (const secret of secrets) {
        // The whole value, its random part and its base64 form (as a sloppy encoder would store it).
        const forms = [secret, secret.replace(/^(dg_live_|at_|rt_)/, ''), Buffer.from(secret).toString('base64')];
        for (const form of forms) expect(everything.includes(form)).toBe(false);
      }
    });
  });
});
