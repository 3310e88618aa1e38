import { DecisionClient, KeyLifecycle } from '@gateway/decisions';
import {
  CredentialCipher,
  DEFAULT_PLANS,
  openStore,
  type ApiKeyRecord,
  type CustomerRecord,
  type Plan,
  type PlanName,
  type PlatformCredentials,
  type ProviderId,
  type Store,
} from '@gateway/store';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { connect, type NatsConnection } from 'nats';
import type { GatewayCluster } from './gateway-cluster';
import { jose } from './jose.runtime';

export interface SandboxRequest {
  seq: number;
  /** ISO instant the sandbox received it. */
  time: string;
  method: string;
  path: string;
  query: string;
  headers: Record<string, string>;
  body: string;
}

/**
 * Seeds customers, connections and keys into a cluster's database the way the portal will (store +
 * KeyLifecycle), grants video-ads connections at the sandbox, and reads the sandbox's request log.
 */
export class GatewayFixtures {
  private constructor(
    readonly store: Store,
    readonly lifecycle: KeyLifecycle,
    readonly decisions: DecisionClient,
    private readonly nc: NatsConnection,
    private readonly cluster: GatewayCluster,
  ) {}

  static async open(cluster: GatewayCluster, mongoUri: string, natsUrl: string): Promise<GatewayFixtures> {
    const cipher = CredentialCipher.fromEnv(cluster.secrets.credentialsKeys, cluster.secrets.credentialsActiveKeyId);
    const store = await openStore(mongoUri, { cipher });
    await store.plans.seedDefaultPlans();
    // Like the services, the fixtures outlive any NATS outage (the client's default gives up after about 20 s).
    const nc = await connect({ servers: natsUrl, maxReconnectAttempts: -1 });
    const decisions = new DecisionClient(nc, {
      partitions: Number(cluster.sharedEnv.PARTITIONS),
      subjectPrefix: cluster.sharedEnv.SUBJECT_PREFIX!,
    });
    const lifecycle = new KeyLifecycle({ apiKeys: store.apiKeys, decisions });
    return new GatewayFixtures(store, lifecycle, decisions, nc, cluster);
  }

  /** Overrides a plan's limits in this database (tests pick small quotas or high rates). */
  async setPlan(name: PlanName, overrides: Partial<Plan>): Promise<void> {
    const current = (await this.store.plans.findByName(name)) ?? DEFAULT_PLANS[name];
    await this.store.plans.seedDefaultPlans([{ ...current, ...overrides }]);
  }

  async customer(plan: PlanName = 'trial'): Promise<CustomerRecord> {
    return this.store.customers.create({
      name: 'Test Customer',
      email: `c-${randomBytes(5).toString('hex')}@example.test`,
      plan,
    });
  }

  /** A video-ads connection whose token the sandbox really issued (for advertisers of one business center). */
  async videoAdsConnection(
    customerId: string,
    bcIndex = 0,
  ): Promise<{ accountId: string; token: string; advertiserIds: string[] }> {
    const accounts = (await (await fetch(`${this.cluster.sandbox.url}/_sandbox/accounts`)).json()) as {
      business_centers: { bc_id: string }[];
    };
    const bcId = accounts.business_centers[bcIndex % accounts.business_centers.length]!.bc_id;
    const minted = (await (
      await fetch(`${this.cluster.sandbox.url}/_sandbox/grants`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ bc_ids: [bcId] }),
      })
    ).json()) as { access_token: string; advertiser_ids: string[] };
    const connection = await this.store.connections.create({
      customer_id: customerId,
      provider: 'video-ads',
      external_account_ids: minted.advertiser_ids,
      credentials: { access_token: minted.access_token },
    });
    return { accountId: connection.account_id, token: minted.access_token, advertiserIds: minted.advertiser_ids };
  }

  /**
   * A video-shop connection for one shop of a sandbox seller, with the token pair the sandbox really issued and
   * the shop's cipher, as the portal's grant flow stores it.
   */
  async videoShopConnection(
    customerId: string,
    sellerIndex = 0,
    shopIndex = 0,
  ): Promise<{ accountId: string; shopId: string; accessToken: string; refreshToken: string; openId: string }> {
    const sandbox = this.cluster.sandbox.url;
    const sellers = (await (await fetch(`${sandbox}/_sandbox/video-shop/sellers`)).json()) as {
      sellers: { open_id: string }[];
    };
    const openId = sellers.sellers[sellerIndex % sellers.sellers.length]!.open_id;
    const { credentials, shop } = await this.mintVideoShopGrant(openId, shopIndex);
    const connection = await this.store.connections.create({
      customer_id: customerId,
      provider: 'video-shop',
      external_account_ids: [shop.id],
      credentials,
    });
    return {
      accountId: connection.account_id,
      shopId: shop.id,
      accessToken: credentials.access_token,
      refreshToken: credentials.refresh_token!,
      openId,
    };
  }

  /**
   * The seller grants again (a re-grant in the portal): a new grant at the sandbox, its tokens stored on the same
   * connection. Returns the new credentials.
   */
  async regrantVideoShop(accountId: string, openId: string, shopIndex = 0): Promise<PlatformCredentials> {
    const { credentials } = await this.mintVideoShopGrant(openId, shopIndex);
    if (!(await this.store.connections.regrant(accountId, credentials))) throw new Error(`no connection ${accountId}`);
    return credentials;
  }

  /** A grant the sandbox issued for a seller, as the portal's grant flow stores it for one of its shops. */
  private async mintVideoShopGrant(
    openId: string,
    shopIndex: number,
  ): Promise<{ credentials: PlatformCredentials; shop: { id: string; cipher: string } }> {
    const minted = (await (
      await fetch(`${this.cluster.sandbox.url}/_sandbox/video-shop/grants`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ open_id: openId }),
      })
    ).json()) as {
      access_token: string;
      access_token_expire_in: number;
      refresh_token: string;
      refresh_token_expire_in: number;
      shops: { id: string; cipher: string }[];
    };
    const shop = minted.shops[shopIndex % minted.shops.length]!;
    return {
      shop,
      credentials: {
        access_token: minted.access_token,
        refresh_token: minted.refresh_token,
        access_token_expires_at: new Date(minted.access_token_expire_in * 1000).toISOString(),
        refresh_token_expires_at: new Date(minted.refresh_token_expire_in * 1000).toISOString(),
        attributes: { shop_cipher: shop.cipher, shop_id: shop.id },
      },
    };
  }

  /**
   * A connection of one marketplace app for one sandbox shop, with the token pair the sandbox really issued, as
   * the portal's grant flow stores it (the shop id as attribute and as the external account id).
   */
  async marketplaceConnection(
    customerId: string,
    provider: 'marketplace' | 'marketplace-ads' | 'marketplace-affiliate',
    shopIndex = 0,
  ): Promise<{ accountId: string; shopId: string; accessToken: string; refreshToken: string }> {
    const sandbox = this.cluster.sandbox.url;
    const listing = (await (await fetch(`${sandbox}/_sandbox/marketplace/shops`)).json()) as {
      shops: { shop_id: number }[];
    };
    const shopId = listing.shops[shopIndex % listing.shops.length]!.shop_id;
    const minted = (await (
      await fetch(`${sandbox}/_sandbox/marketplace/grants`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          partner_id: Number(this.cluster.secrets.marketplaceApps[provider].partnerId),
          shop_id: shopId,
        }),
      })
    ).json()) as {
      access_token: string;
      refresh_token: string;
      access_token_expires_at: number;
      refresh_token_expires_at: number;
    };
    const connection = await this.store.connections.create({
      customer_id: customerId,
      provider,
      external_account_ids: [String(shopId)],
      credentials: {
        access_token: minted.access_token,
        refresh_token: minted.refresh_token,
        access_token_expires_at: new Date(minted.access_token_expires_at * 1000).toISOString(),
        refresh_token_expires_at: new Date(minted.refresh_token_expires_at * 1000).toISOString(),
        attributes: { shop_id: String(shopId) },
      },
    });
    return {
      accountId: connection.account_id,
      shopId: String(shopId),
      accessToken: minted.access_token,
      refreshToken: minted.refresh_token,
    };
  }

  /**
   * A search-ads connection as the portal makes it: an EC P-256 key pair whose public key is registered at the
   * sandbox as an API user, a token minted with an ES256 client assertion, and one organization.
   */
  async searchAdsConnection(
    customerId: string,
    orgIndex = 0,
  ): Promise<{ accountId: string; orgId: string; accessToken: string; clientId: string }> {
    const sandbox = this.cluster.sandbox.url;
    const pair = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const user = (await (
      await fetch(`${sandbox}/_sandbox/search-ads/api-users`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ public_key_pem: pair.publicKey.export({ type: 'spki', format: 'pem' }).toString() }),
      })
    ).json()) as { client_id: string; team_id: string; key_id: string; org_ids: number[] };
    const iat = Math.floor(Date.now() / 1000);
    const assertion = await new jose.SignJWT({})
      .setProtectedHeader({ alg: 'ES256', kid: user.key_id })
      .setSubject(user.client_id)
      .setIssuer(user.team_id)
      .setAudience('https://appleid.apple.com')
      .setIssuedAt(iat)
      .setExpirationTime(iat + 300)
      .sign(pair.privateKey);
    const token = (await (
      await fetch(`${sandbox}/search-ads-auth/auth/oauth2/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'client_credentials',
          client_id: user.client_id,
          client_secret: assertion,
          scope: 'searchadsorg',
        }).toString(),
      })
    ).json()) as { access_token: string; expires_in: number };
    const orgId = String(user.org_ids[orgIndex % user.org_ids.length]);
    const connection = await this.store.connections.create({
      customer_id: customerId,
      provider: 'search-ads',
      external_account_ids: [orgId],
      credentials: {
        access_token: token.access_token,
        access_token_expires_at: new Date(Date.now() + token.expires_in * 1000).toISOString(),
        attributes: {
          client_id: user.client_id,
          team_id: user.team_id,
          key_id: user.key_id,
          org_id: orgId,
          private_key: pair.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
        },
      },
    });
    return { accountId: connection.account_id, orgId, accessToken: token.access_token, clientId: user.client_id };
  }

  /** A connection of another provider (no platform behind it; enough for account checks). */
  async otherConnection(customerId: string, provider: ProviderId): Promise<string> {
    const connection = await this.store.connections.create({
      customer_id: customerId,
      provider,
      external_account_ids: [randomBytes(4).toString('hex')],
      credentials: { access_token: randomBytes(16).toString('hex') },
    });
    return connection.account_id;
  }

  async key(input: {
    customerId: string;
    providers?: ProviderId[];
    accountIds?: string[];
    ipAllowlist?: string[];
  }): Promise<{ secret: string; key: ApiKeyRecord }> {
    const created = await this.store.apiKeys.create({
      customer_id: input.customerId,
      name: 'test key',
      providers: input.providers ?? ['video-ads'],
      account_ids: input.accountIds ?? [],
      ip_allowlist: input.ipAllowlist ?? [],
    });
    await this.lifecycle.created(created.key);
    return created;
  }

  /** The sandbox's request log after `since` (a sequence number). */
  async sandboxRequests(since = 0): Promise<{ requests: SandboxRequest[]; lastSeq: number }> {
    const body = (await (await fetch(`${this.cluster.sandbox.url}/_sandbox/requests?since=${since}`)).json()) as {
      requests: SandboxRequest[];
      last_seq: number;
    };
    return { requests: body.requests, lastSeq: body.last_seq };
  }

  async close(): Promise<void> {
    await this.nc.drain();
    await this.store.close();
  }
}
