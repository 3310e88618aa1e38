import { exchangeVideoAdsAuthCode, type VideoAdsApp } from '@gateway/platform-grants';
import { hashApiKey, type Store } from '@gateway/store';

export interface DemoIdentity {
  customer_id: string;
  email: string;
  api_key: string;
  key_id: string;
  account_ids: string[];
}

const DEMO_EMAIL = 'demo@example.com';

/**
 * A demo customer on the trial plan with one video-ads connection granted through the sandbox's real grant flow
 * (authorization page -> auth_code -> token exchange) and one key. Re-running keeps the customer, re-grants the
 * connection (the sandbox forgets tokens when it restarts; the account id stays, spec 3) and keeps the key when
 * it is still active.
 */
export async function seedDemo(store: Store, app: VideoAdsApp, previous?: DemoIdentity): Promise<DemoIdentity> {
  await store.plans.seedDefaultPlans();
  const customer =
    (await store.customers.findByEmail(DEMO_EMAIL)) ??
    (await store.customers.create({ name: 'Demo Customer', email: DEMO_EMAIL, plan: 'trial' }));

  const grant = await exchangeVideoAdsAuthCode(app, await consentAtSandbox(app));
  const existing = (await store.connections.listByCustomer(customer.customer_id)).find(
    (connection) => connection.provider === 'video-ads',
  );
  const connection = existing
    ? await store.connections.regrant(existing.account_id, { access_token: grant.accessToken }, grant.advertiserIds)
    : await store.connections.create({
        customer_id: customer.customer_id,
        provider: 'video-ads',
        external_account_ids: grant.advertiserIds,
        credentials: { access_token: grant.accessToken },
      });

  if (previous?.api_key) {
    const key = await store.apiKeys.findByHash(hashApiKey(previous.api_key));
    if (key?.status === 'active' && key.customer_id === customer.customer_id) {
      return { ...previous, account_ids: key.account_ids };
    }
  }
  const { key, secret } = await store.apiKeys.create({
    customer_id: customer.customer_id,
    name: 'Demo key',
    providers: ['video-ads'],
    account_ids: [connection!.account_id],
  });
  return {
    customer_id: customer.customer_id,
    email: DEMO_EMAIL,
    api_key: secret,
    key_id: key.key_id,
    account_ids: key.account_ids,
  };
}

/** Plays the customer on the sandbox's authorization page: picks the first business center and authorizes. */
async function consentAtSandbox(app: VideoAdsApp): Promise<string> {
  const accounts = (await (await fetch(new URL('/_sandbox/accounts', app.baseUrl))).json()) as {
    business_centers?: { bc_id: string }[];
  };
  const bcId = accounts.business_centers?.[0]?.bc_id;
  if (!bcId) throw new Error('the sandbox lists no business center to grant');
  const redirectUri = 'http://127.0.0.1/demo-callback';
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
