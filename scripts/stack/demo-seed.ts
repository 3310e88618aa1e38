import {
  exchangeVideoAdsAuthCode,
  generateSearchAdsKeyPair,
  marketplaceGrant,
  searchAdsGrant,
  SearchAdsGrantError,
  videoShopGrant,
  type GrantedAccount,
  type MarketplaceApp,
  type PlatformGrant,
  type SearchAdsApiUser,
  type SearchAdsGrant,
  type VideoAdsApp,
  type VideoShopApp,
} from '@gateway/platform-grants';
import {
  hashApiKey,
  type ConnectionRecord,
  type CreateConnectionInput,
  type ProviderId,
  type Store,
} from '@gateway/store';

export interface DemoAccount {
  provider: ProviderId;
  account_id: string;
}

export interface DemoIdentity {
  customer_id: string;
  email: string;
  api_key: string;
  key_id: string;
  /** Every account id of the demo key (kept for scripts that read stack.json). */
  account_ids: string[];
  /** The same accounts with their provider: one per provider the stack serves. */
  accounts: DemoAccount[];
}

const DEMO_EMAIL = 'demo@example.com';

/** The three marketplace partner apps: one platform, one grant each, so one shop is three connections. */
export const MARKETPLACE_PROVIDERS = ['marketplace', 'marketplace-ads', 'marketplace-affiliate'] as const;
export type MarketplaceProvider = (typeof MARKETPLACE_PROVIDERS)[number];

/** search-ads at the sandbox: its API host and token host (platform-sandbox README, search-ads). */
export interface SearchAdsPlatform {
  apiBaseUrl: string;
  authBaseUrl: string;
}

/**
 * The demo has six connections (video-ads, video-shop, one shop on each of the three marketplace apps and one
 * search-ads organization): the trial plan allows 3 (DEFAULT_PLANS), growth 15, so the demo customer is on growth.
 */
const DEMO_PLAN = 'growth';

/**
 * A demo customer on the growth plan with one connection per provider the stack serves, each granted through the
 * sandbox's own flow, as the portal grants it: video-ads, video-shop and each of the three marketplace apps through
 * the platform's authorization page (the demo plays the seller: first business center, first seller's first shop,
 * first marketplace shop, so one shop is three marketplace connections with one shop id) and the portal's grant
 * plug-in's code exchange; search-ads as the portal makes it (an API user of one sandbox org with a key pair made
 * here). And one key for all six. Re-running keeps the customer (moved to the growth plan if an
 * older run made it a trial customer), re-grants the connections (the sandbox forgets tokens and API users when it
 * restarts; the account ids stay, spec 3) and keeps the key when it is still active, widened to every connection.
 */
export async function seedDemo(
  store: Store,
  sandbox: {
    videoAds: VideoAdsApp;
    videoShop: VideoShopApp;
    marketplace: Record<MarketplaceProvider, MarketplaceApp>;
    searchAds: SearchAdsPlatform;
  },
  previous?: Partial<DemoIdentity>,
): Promise<DemoIdentity> {
  await store.plans.seedDefaultPlans();
  const found = await store.customers.findByEmail(DEMO_EMAIL);
  const customer = found
    ? found.plan === DEMO_PLAN
      ? found
      : ((await store.customers.setPlan(found.customer_id, DEMO_PLAN)) ?? found)
    : await store.customers.create({ name: 'Demo Customer', email: DEMO_EMAIL, plan: DEMO_PLAN });
  const existing = await store.connections.listByCustomer(customer.customer_id);
  const upsert = async (
    provider: ProviderId,
    credentials: CreateConnectionInput['credentials'],
    externalAccountIds: string[],
  ): Promise<ConnectionRecord> => {
    const current = existing.find((connection) => connection.provider === provider);
    const connection = current
      ? await store.connections.regrant(current.account_id, credentials, externalAccountIds)
      : await store.connections.create({
          customer_id: customer.customer_id,
          provider,
          external_account_ids: externalAccountIds,
          credentials,
        });
    if (!connection) throw new Error(`the demo ${provider} connection could not be stored`);
    return connection;
  };

  const adsGrant = await exchangeVideoAdsAuthCode(sandbox.videoAds, await consentAtSandbox(sandbox.videoAds));
  const ads = await upsert('video-ads', { access_token: adsGrant.accessToken }, adsGrant.advertiserIds);
  const [shopGrant] = await grantAtSandbox(videoShopGrant(sandbox.videoShop), pickFirst('open_id'));
  if (!shopGrant) throw new Error('the sandbox granted a video-shop seller without shops');
  const shop = await upsert('video-shop', shopGrant.credentials, shopGrant.externalAccountIds);

  const accounts: DemoAccount[] = [
    { provider: 'video-ads', account_id: ads.account_id },
    { provider: 'video-shop', account_id: shop.account_id },
  ];
  for (const provider of MARKETPLACE_PROVIDERS) {
    const grant = marketplaceGrant(provider, sandbox.marketplace[provider]);
    const [granted] = await grantAtSandbox(grant, pickFirst('shop_id'));
    if (!granted) throw new Error(`the sandbox's ${provider} grant covered no shop`);
    const connection = await upsert(provider, granted.credentials, granted.externalAccountIds);
    accounts.push({ provider, account_id: connection.account_id });
  }
  const searchAds = searchAdsGrant(sandbox.searchAds);
  const current = existing.find((connection) => connection.provider === 'search-ads');
  const kept = current ? await keptSearchAdsGrant(store, searchAds, current.account_id) : undefined;
  const adsUser = kept ?? (await newSearchAdsGrant(searchAds, sandbox.videoAds.baseUrl));
  const searchAdsConnection = await upsert('search-ads', adsUser.credentials, adsUser.externalAccountIds);
  accounts.push({ provider: 'search-ads', account_id: searchAdsConnection.account_id });
  const accountIds = accounts.map((account) => account.account_id);
  const providers = accounts.map((account) => account.provider);
  const identity = (key: { key_id: string; account_ids: string[] }, apiKey: string): DemoIdentity => ({
    customer_id: customer.customer_id,
    email: DEMO_EMAIL,
    api_key: apiKey,
    key_id: key.key_id,
    account_ids: key.account_ids,
    accounts: accounts.filter((account) => key.account_ids.includes(account.account_id)),
  });

  if (previous?.api_key) {
    const key = await store.apiKeys.findByHash(hashApiKey(previous.api_key));
    if (key?.status === 'active' && key.customer_id === customer.customer_id) {
      // A key from before a provider was added gets the new connection too.
      await store.apiKeys.setProviders(key.key_id, providers);
      const updated = await store.apiKeys.setAccounts(key.key_id, accountIds);
      if (updated) return identity(updated, previous.api_key);
    }
  }
  const { key, secret } = await store.apiKeys.create({
    customer_id: customer.customer_id,
    name: 'Demo key',
    providers,
    account_ids: accountIds,
  });
  return identity(key, secret);
}

type SearchAdsDemoGrant = { externalAccountIds: string[]; credentials: CreateConnectionInput['credentials'] };

/**
 * search-ads, re-run: the stored connection still works when its API user still mints tokens (a sandbox that did not
 * restart). Then it is kept, key pair and API user, with a fresh token. Undefined when it does not (invalid_client:
 * the restarted sandbox forgot its API users), so the caller makes a new API user and re-grants the same account id.
 */
async function keptSearchAdsGrant(
  store: Store,
  grant: SearchAdsGrant,
  accountId: string,
): Promise<SearchAdsDemoGrant | undefined> {
  let attributes: Record<string, string> | undefined;
  try {
    // null unless active: a connection the platform refused (needs_regrant) gets a new API user.
    attributes = (await store.connections.loadCredentials(accountId))?.attributes;
  } catch {
    return undefined;
  }
  const { client_id, team_id, key_id, org_id, private_key } = attributes ?? {};
  if (!client_id || !team_id || !key_id || !org_id || !private_key) return undefined;
  const user: SearchAdsApiUser = { clientId: client_id, teamId: team_id, keyId: key_id, privateKeyPem: private_key };
  try {
    return grant.grantedAccount(user, await grant.mintToken(user), Number(org_id));
  } catch (error) {
    if (error instanceof SearchAdsGrantError && error.reason === 'invalid_client') return undefined;
    throw error;
  }
}

/**
 * search-ads, first run or a forgotten API user: what the customer does with the portal's public key, through the
 * sandbox's control route (POST /_sandbox/search-ads/api-users, one org: the first of GET /_sandbox/search-ads/orgs),
 * then the portal's own token mint (ES256 client assertion) and stored shape (libs/testing's searchAdsConnection).
 */
async function newSearchAdsGrant(grant: SearchAdsGrant, sandboxUrl: string): Promise<SearchAdsDemoGrant> {
  const listing = (await (await fetch(new URL('/_sandbox/search-ads/orgs', sandboxUrl))).json()) as {
    orgs?: { orgId: number }[];
  };
  const orgId = listing.orgs?.[0]?.orgId;
  if (orgId === undefined) throw new Error('the sandbox lists no search-ads organization to grant');
  const pair = await generateSearchAdsKeyPair();
  const response = await fetch(new URL('/_sandbox/search-ads/api-users', sandboxUrl), {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ public_key_pem: pair.publicKeyPem, org_ids: [orgId] }),
  });
  if (response.status !== 201) throw new Error(`the sandbox's search-ads API user answered ${response.status}`);
  const registered = (await response.json()) as { client_id: string; team_id: string; key_id: string };
  const user: SearchAdsApiUser = {
    clientId: registered.client_id,
    teamId: registered.team_id,
    keyId: registered.key_id,
    privateKeyPem: pair.privateKeyPem,
  };
  return grant.grantedAccount(user, await grant.mintToken(user), orgId);
}

/** The consent form's choice: the first value the page offers for the named radio or select field. */
function pickFirst(field: string): (page: string) => string {
  return (page) => {
    const value = new RegExp(`name="${field}" value="([^"]+)"`).exec(page)?.[1];
    if (value === undefined) throw new Error(`the sandbox's authorization page offers no ${field}`);
    return value;
  };
}

const DEMO_CALLBACK = 'http://127.0.0.1/demo-callback';

/**
 * Plays the customer on a platform's authorization page (the grant plug-in's own URL): reads the page, submits its
 * form with every hidden field as served and the choice `pick` makes, and hands the redirect's query to the
 * plug-in's code exchange, as the portal's callback does.
 */
async function grantAtSandbox(grant: PlatformGrant, pick: (page: string) => string): Promise<GrantedAccount[]> {
  const authorize = new URL(grant.authorizationUrl('demo', DEMO_CALLBACK));
  const page = await fetch(authorize);
  if (page.status !== 200) throw new Error(`the ${grant.provider} authorization page answered ${page.status}`);
  const html = await page.text();
  const form = new URLSearchParams(authorize.searchParams);
  for (const [, name, value] of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"/g)) {
    form.set(name!, decodeEntities(value!));
  }
  const choice = pick(html);
  const field = /name="(open_id|shop_id|bc_id)"/.exec(html)?.[1];
  if (field === undefined) throw new Error(`the ${grant.provider} authorization page has no choice to make`);
  form.set(field, choice);
  form.set('action', 'authorize');
  const consent = await fetch(new URL(authorize.pathname, authorize.origin), {
    method: 'POST',
    body: form,
    redirect: 'manual',
  });
  const location = consent.headers.get('location');
  if (consent.status !== 302 || !location) {
    throw new Error(`the ${grant.provider} authorization page answered ${consent.status} without a redirect`);
  }
  return grant.exchange(Object.fromEntries(new URL(location).searchParams));
}

function decodeEntities(text: string): string {
  return text.replace(/&#(\d+);/g, (_, code: string) => String.fromCharCode(Number(code))).replace(/&amp;/g, '&');
}

/** Plays the customer on the sandbox's authorization page: picks the first business center and authorizes. */
async function consentAtSandbox(app: VideoAdsApp): Promise<string> {
  const accounts = (await (await fetch(new URL('/_sandbox/accounts', app.baseUrl))).json()) as {
    business_centers?: { bc_id: string }[];
  };
  const bcId = accounts.business_centers?.[0]?.bc_id;
  if (!bcId) throw new Error('the sandbox lists no business center to grant');
  const redirectUri = DEMO_CALLBACK;
  const response = await fetch(new URL('/portal/auth', app.baseUrl), {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      app_id: app.appId,
      state: 'demo',
      redirect_uri: redirectUri,
      bc_id: bcId,
      action: 'authorize',
    }),
    redirect: 'manual',
  });
  const location = response.headers.get('location');
  const code = location ? new URL(location).searchParams.get('auth_code') : null;
  if (!code) throw new Error(`the sandbox authorization page answered ${response.status} without an auth_code`);
  return code;
}
