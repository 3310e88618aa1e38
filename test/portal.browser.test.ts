import { GatewayFixtures, startGatewayCluster, type GatewayCluster } from '@gateway/testing';
import { existsSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { testDatabaseUri, testNatsUrl } from './harness';

/**
 * The acceptance flow of the key portal in a real browser (Debian's chromium driven by playwright-core, headless):
 * sign up, connect video-ads through the sandbox's authorization page, create a key and copy it once, call the
 * REST gateway with it, see usage rise on the chart, rotate it (old key refused), revoke it; the usage page shows
 * the customer's month against the quota all its keys share and each key's share; one marketplace shop granted to
 * the three apps shows as three connections; search-ads connects with a key pair the portal makes, whose public key
 * is registered on the sandbox's API-user page.
 */
const CHROMIUM = '/usr/bin/chromium';
const ADVERTISERS = '/v1/video-ads/v1.3/oauth2/advertiser/get/';
const describeWithChromium = existsSync(CHROMIUM) ? describe : describe.skip;

let cluster: GatewayCluster;
let fixtures: GatewayFixtures;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let portal: string;
let edge: string;

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) return;
  const mongoUri = testDatabaseUri();
  cluster = await startGatewayCluster({ mongoUri, natsUrl: testNatsUrl(), edges: 1, actors: 1 });
  fixtures = await GatewayFixtures.open(cluster, mongoUri, testNatsUrl());
  edge = cluster.edges[0]!.url;
  portal = (await cluster.startPortal({ LOG_LEVEL: 'error' })).url;
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
  context = await browser.newContext();
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: portal });
  page = await context.newPage();
  // Rotate and revoke ask for confirmation.
  page.on('dialog', (dialog) => void dialog.accept());
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await fixtures?.close();
  await cluster?.stop();
});

async function rest(secret: string): Promise<{ status: number; code: unknown }> {
  const response = await fetch(`${edge}${ADVERTISERS}`, { headers: { 'X-API-Key': secret } });
  return { status: response.status, code: ((await response.json()) as { code?: unknown }).code };
}

async function oneTimeKey(): Promise<string> {
  const secret = (await page.getByTestId('secret').textContent())!.trim();
  expect(secret).toMatch(/^dg_live_[0-9A-Za-z]{40}$/);
  return secret;
}

describeWithChromium('portal in a browser', () => {
  it('signs up, connects video-ads, creates, uses, rotates and revokes a key', async () => {
    // Sign up, with a validation message first.
    await page.goto(`${portal}/sign-up`);
    await page.getByLabel('Name').fill('Browser Tester');
    await page.getByLabel('Email').fill(`b-${randomBytes(4).toString('hex')}@example.test`);
    await page.getByLabel('Password').fill('short');
    await page.getByRole('button', { name: 'Create account' }).click();
    await expect(page.locator('[data-field="password"] .field-error').textContent()).resolves.toMatch(/12 characters/);
    await page.getByLabel('Password').fill('a long enough passphrase');
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.waitForURL(`${portal}/connections`);
    await page.getByText('No connections yet.').waitFor();

    // Connect video-ads on the sandbox's authorization page.
    await page.getByRole('button', { name: 'Connect Video ads' }).click();
    await page.waitForURL((url) => url.toString().startsWith(`${cluster.sandbox.url}/portal/auth`));
    await page.locator('input[name="bc_id"]').first().check();
    await page.getByRole('button', { name: 'Authorize' }).click();
    await page.waitForURL((url) => url.pathname === '/connections' && url.searchParams.has('connected'));
    const accountId = new URL(page.url()).searchParams.get('connected')!;
    expect(accountId).toMatch(/^acct_/);
    await page.locator(`tr[data-account-id="${accountId}"]`).waitFor();

    // Create a key; it is shown once, with a copy button.
    await page.getByRole('link', { name: 'Keys' }).click();
    await page.waitForURL(`${portal}/keys`);
    await page.getByText('You have no keys yet.').waitFor();
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.locator('[data-field="name"] .field-error').waitFor();
    await page.getByLabel('Name').fill('browser key');
    await page.getByRole('button', { name: 'Create key' }).click();
    const secret = await oneTimeKey();
    await page.getByRole('button', { name: 'Copy' }).click();
    await page.getByRole('button', { name: 'Copied' }).waitFor();
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(secret);
    await page.reload();
    await page.locator('tr[data-key-id]').first().waitFor();
    expect(await page.content()).not.toContain(secret);
    const keyId = await page.locator('tr[data-key-id]').first().getAttribute('data-key-id');

    // The key works on the REST gateway, and the usage chart rises.
    await page.getByRole('link', { name: 'Plan & usage' }).click();
    await page.waitForURL(`${portal}/usage`);
    expect(await page.getByTestId('quota-used').textContent()).toBe('0');
    for (let i = 0; i < 3; i++) expect(await rest(secret)).toEqual({ status: 200, code: 0 });
    const chart = page.getByTestId(`chart-${keyId}`);
    // Until the actor's usage flush reached the database (every second); the deadline only bounds that wait.
    const deadline = Date.now() + 30_000;
    while ((await chart.getAttribute('data-used')) !== '3' && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      await page.reload();
    }
    expect(await page.getByTestId('quota-used').textContent()).toBe('3');
    const today = new Date().toISOString().slice(8, 10);
    expect(await chart.locator(`rect[data-day="${today}"]`).getAttribute('data-count')).toBe('3');

    // Rotate: a new key shown once; the old one is refused at once.
    await page.getByRole('link', { name: 'Keys' }).click();
    await page.waitForURL(`${portal}/keys`);
    await page.getByRole('button', { name: 'Rotate' }).click();
    const rotated = await oneTimeKey();
    expect(rotated).not.toBe(secret);
    expect(await rest(secret)).toEqual({ status: 401, code: 'key_revoked' });
    expect(await rest(rotated)).toEqual({ status: 200, code: 0 });

    // Revoke right after dismissing the new key: refused at once, and shown revoked. Key lists answer late here,
    // as on a slow network, so a list fetched before the revoke cannot paint the key active again afterwards.
    await page.route(`${portal}/api/keys`, async (route) => {
      const response = await route.fetch();
      await new Promise((resolve) => setTimeout(resolve, 300));
      await route.fulfill({ response });
    });
    await page.getByRole('button', { name: 'Done' }).click();
    await page.getByRole('button', { name: 'Revoke' }).click();
    await page.locator('tr[data-key-id] .badge.revoked').nth(1).waitFor({ timeout: 10_000 });
    expect(await page.locator('tr[data-key-id] .badge.active').count()).toBe(0);
    expect(await page.locator('tr[data-key-id] .badge.revoked').count()).toBe(2);
    expect(await rest(rotated)).toEqual({ status: 401, code: 'key_revoked' });

    // The MCP page shows {mcp_url} with a copy button.
    await page.getByRole('link', { name: 'MCP' }).click();
    await page.waitForURL(`${portal}/mcp`);
    await page.getByTestId('mcp-url').waitFor();
  }, 120_000);

  it("shows the customer's month against the quota all its keys share, and each key's share of it", async () => {
    const usageContext = await browser.newContext({ locale: 'en-US' });
    const usagePage = await usageContext.newPage();
    try {
      const email = `u-${randomBytes(4).toString('hex')}@example.test`;
      await usagePage.goto(`${portal}/sign-up`);
      await usagePage.getByLabel('Name').fill('Usage Tester');
      await usagePage.getByLabel('Email').fill(email);
      await usagePage.getByLabel('Password').fill('a long enough passphrase');
      await usagePage.getByRole('button', { name: 'Create account' }).click();
      await usagePage.waitForURL(`${portal}/connections`);

      // Two keys of the customer, with this month's usage written into the ledger.
      const customer = (await fixtures.store.customers.findByEmail(email))!;
      const keyOf = (name: string) =>
        fixtures.store.apiKeys.create({ customer_id: customer.customer_id, name, providers: ['video-ads'] });
      const reports = await keyOf('reports job');
      const dashboard = await keyOf('dashboard');
      const now = new Date();
      await fixtures.store.usage.add(reports.key.key_id, now, 900);
      await fixtures.store.usage.add(dashboard.key.key_id, now, 334);

      await usagePage.goto(`${portal}/usage`);
      const total = usagePage.getByTestId('usage-total');
      await total.waitFor();
      expect(await total.getByTestId('total-line').textContent()).toBe(
        '1,234 of 10,000 requests this month, shared by all your keys',
      );
      expect(await total.getByRole('progressbar').getAttribute('aria-valuenow')).toBe('12');
      const today = now.toISOString().slice(8, 10);
      const chart = usagePage.getByTestId('chart-total');
      expect(await chart.getAttribute('data-used')).toBe('1234');
      expect(await chart.locator(`rect[data-day="${today}"]`).getAttribute('data-count')).toBe('1234');

      const share = async (keyId: string) => {
        const card = usagePage.locator(`[data-key-id="${keyId}"]`);
        return {
          text: await card.getByTestId('key-share').textContent(),
          meter: await card.getByRole('progressbar').getAttribute('aria-valuenow'),
        };
      };
      expect(await share(reports.key.key_id)).toEqual({ text: '900 requests, 72.9% of the total', meter: '73' });
      expect(await share(dashboard.key.key_id)).toEqual({ text: '334 requests, 27.1% of the total', meter: '27' });
      await usagePage.getByText('10,000 requests a month, shared by all your keys', { exact: false }).waitFor();
      expect(await usagePage.content()).not.toContain('requests per key');
    } finally {
      await usageContext.close();
    }
  }, 120_000);

  it("edits a key's name and connections, effective on the next REST request; an OAuth key can be narrowed", async () => {
    const editContext = await browser.newContext();
    const editPage = await editContext.newPage();
    editPage.on('dialog', (dialog) => void dialog.accept());
    const call = async (secret: string, accountId: string) => {
      const response = await fetch(`${edge}${ADVERTISERS}`, {
        headers: { 'X-API-Key': secret, 'X-Account-Id': accountId },
      });
      return { status: response.status, code: ((await response.json()) as { code?: unknown }).code };
    };
    try {
      const email = `e-${randomBytes(4).toString('hex')}@example.test`;
      await editPage.goto(`${portal}/sign-up`);
      await editPage.getByLabel('Name').fill('Edit Tester');
      await editPage.getByLabel('Email').fill(email);
      await editPage.getByLabel('Password').fill('a long enough passphrase');
      await editPage.getByRole('button', { name: 'Create account' }).click();
      await editPage.waitForURL(`${portal}/connections`);

      // Two video-ads connections (two business centers of the sandbox).
      const accountIds: string[] = [];
      for (const bc of [0, 1]) {
        await editPage.getByRole('button', { name: 'Connect Video ads' }).click();
        await editPage.waitForURL((url) => url.toString().startsWith(`${cluster.sandbox.url}/portal/auth`));
        await editPage.locator('input[name="bc_id"]').nth(bc).check();
        await editPage.getByRole('button', { name: 'Authorize' }).click();
        await editPage.waitForURL((url) => url.pathname === '/connections' && url.searchParams.has('connected'));
        accountIds.push(new URL(editPage.url()).searchParams.get('connected')!);
      }
      const [first, second] = accountIds as [string, string];
      expect(first).not.toBe(second);

      // A key with both connections (the form checks every connection).
      await editPage.goto(`${portal}/keys`);
      await editPage.getByLabel('Name').fill('before edit');
      await editPage.getByRole('button', { name: 'Create key' }).click();
      const secret = (await editPage.getByTestId('secret').textContent())!.trim();
      await editPage.getByRole('button', { name: 'Done' }).click();
      expect(await call(secret, second)).toEqual({ status: 200, code: 0 });

      // Edit: a new name, and the second connection unchecked.
      const row = editPage.locator('tr[data-key-id]').first();
      await row.getByRole('button', { name: 'Edit' }).click();
      const form = row.locator('form.edit-key');
      await form.getByLabel('Key name').fill('after edit');
      await form.locator(`input[name="account_ids"][value="${second}"]`).uncheck();
      await form.getByRole('button', { name: 'Save changes' }).click();
      await editPage.locator('tr[data-key-id]', { hasText: 'after edit' }).waitFor();
      expect(await call(secret, second)).toEqual({ status: 403, code: 'account_not_allowed' });
      expect(await call(secret, first)).toEqual({ status: 200, code: 0 });

      // An assistant's key follows every connection until the customer narrows it here.
      const customer = (await fixtures.store.customers.findByEmail(email))!;
      const oauth = await fixtures.store.apiKeys.create({
        customer_id: customer.customer_id,
        name: 'Chat Assistant (OAuth)',
        providers: ['video-ads'],
        account_ids: [first, second],
        follows_connections: true,
        source: 'oauth',
        oauth: { client_id: 'chat-assistant', subject: customer.customer_id },
      });
      await fixtures.lifecycle.created(oauth.key);
      await editPage.reload();
      const oauthRow = editPage.locator(`tr[data-key-id="${oauth.key.key_id}"]`);
      await oauthRow.getByTestId('follows').waitFor();
      expect(await call(oauth.secret, second)).toEqual({ status: 200, code: 0 });
      await oauthRow.getByRole('button', { name: 'Edit' }).click();
      const oauthForm = oauthRow.locator('form.edit-key');
      const follow = oauthForm.locator('input[name="follows_connections"]');
      expect(await follow.isChecked()).toBe(true);
      expect(await oauthForm.locator(`input[name="account_ids"][value="${second}"]`).isDisabled()).toBe(true);
      await follow.uncheck();
      await oauthForm.locator(`input[name="account_ids"][value="${second}"]`).uncheck();
      await oauthForm.getByRole('button', { name: 'Save changes' }).click();
      await oauthRow.locator('form.edit-key').waitFor({ state: 'detached' });
      expect(await oauthRow.getByTestId('follows').count()).toBe(0);
      expect(await call(oauth.secret, second)).toEqual({ status: 403, code: 'account_not_allowed' });
      expect(await call(oauth.secret, first)).toEqual({ status: 200, code: 0 });
    } finally {
      await editContext.close();
    }
  }, 120_000);

  it('shows a video-shop connection the platform stopped accepting as needing a re-grant, and re-grants it', async () => {
    const shopContext = await browser.newContext();
    const shopPage = await shopContext.newPage();
    try {
      await shopPage.goto(`${portal}/sign-up`);
      await shopPage.getByLabel('Name').fill('Shop Tester');
      await shopPage.getByLabel('Email').fill(`s-${randomBytes(4).toString('hex')}@example.test`);
      await shopPage.getByLabel('Password').fill('a long enough passphrase');
      await shopPage.getByRole('button', { name: 'Create account' }).click();
      await shopPage.waitForURL(`${portal}/connections`);

      // Connect video-shop: the seller authorizes on the sandbox's page, one connection per shop comes back.
      await shopPage.getByRole('button', { name: 'Connect Video shop' }).click();
      await shopPage.waitForURL((url) => url.toString().startsWith(`${cluster.sandbox.url}/video-shop-auth/`));
      const seller = shopPage.locator('input[name="open_id"]').first();
      const openId = (await seller.getAttribute('value'))!;
      await seller.check();
      await shopPage.getByRole('button', { name: 'Authorize' }).click();
      await shopPage.waitForURL((url) => url.pathname === '/connections' && url.searchParams.has('connected'));
      const accountIds = new URL(shopPage.url()).searchParams.get('connected')!.split(',');
      expect(accountIds.length).toBeGreaterThan(0);
      const row = shopPage.locator(`tr[data-account-id="${accountIds[0]}"]`);
      await row.waitFor();
      expect(await row.getByTestId('connection-status').textContent()).toBe('Active');

      // The seller revokes the grant at the platform; the next call through the gateway finds out.
      const connection = await fixtures.store.connections.findByAccountId(accountIds[0]!);
      const { secret } = await fixtures.key({
        customerId: connection!.customer_id,
        providers: ['video-shop'],
        accountIds: [accountIds[0]!],
      });
      const readShops = () =>
        fetch(`${edge}/v1/video-shop/authorization/202309/shops`, {
          headers: { 'X-API-Key': secret, 'X-Account-Id': accountIds[0]! },
        });
      expect((await readShops()).status).toBe(200);
      const revoked = await fetch(`${cluster.sandbox.url}/_sandbox/video-shop/revoke`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ open_id: openId }),
      });
      expect(revoked.status).toBe(200);
      const refused = await readShops();
      expect(refused.status).toBe(409);
      expect(((await refused.json()) as { code: string }).code).toBe('connection_needs_regrant');
      await shopPage.reload();
      await row.waitFor();
      expect(await row.getAttribute('data-status')).toBe('needs_regrant');
      expect(await row.getByTestId('connection-status').textContent()).toBe('Needs re-grant');
      await expect(row.getByTestId('needs-regrant-help').textContent()).resolves.toMatch(
        /no longer accepts this grant.*account id stays the same/,
      );
      const regrant = row.getByRole('button', { name: 'Re-grant' });
      expect(await regrant.isVisible()).toBe(true);

      // Re-grant on the platform's page: the same account id, active again.
      await regrant.click();
      await shopPage.waitForURL((url) => url.toString().startsWith(`${cluster.sandbox.url}/video-shop-auth/`));
      await shopPage.locator('input[name="open_id"]').first().check();
      await shopPage.getByRole('button', { name: 'Authorize' }).click();
      await shopPage.waitForURL((url) => url.pathname === '/connections' && url.searchParams.has('regranted'));
      expect(new URL(shopPage.url()).searchParams.get('connected')!.split(',')[0]).toBe(accountIds[0]);
      await row.waitFor();
      expect(await row.getByTestId('connection-status').textContent()).toBe('Active');
      expect(await row.getByTestId('needs-regrant-help').count()).toBe(0);
      expect((await readShops()).status).toBe(200);
    } finally {
      await shopContext.close();
    }
  }, 120_000);

  it('shows one shop granted to the three marketplace apps as three connections with one shop id', async () => {
    const marketContext = await browser.newContext();
    const marketPage = await marketContext.newPage();
    try {
      await marketPage.goto(`${portal}/sign-up`);
      await marketPage.getByLabel('Name').fill('Marketplace Tester');
      await marketPage.getByLabel('Email').fill(`m-${randomBytes(4).toString('hex')}@example.test`);
      await marketPage.getByLabel('Password').fill('a long enough passphrase');
      await marketPage.getByRole('button', { name: 'Create account' }).click();
      await marketPage.waitForURL(`${portal}/connections`);

      // Each app is offered on its own; the shop owner approves the same (first) shop on each app's page.
      const apps = [
        ['marketplace', 'Marketplace (seller app)'],
        ['marketplace-ads', 'Marketplace ads'],
        ['marketplace-affiliate', 'Marketplace affiliate'],
      ] as const;
      const accountIds: string[] = [];
      for (const [provider, label] of apps) {
        await marketPage.getByRole('button', { name: `Connect ${label}`, exact: true }).click();
        await marketPage.waitForURL((url) =>
          url.toString().startsWith(`${cluster.sandbox.url}/marketplace/api/v2/shop/auth_partner`),
        );
        expect(new URL(marketPage.url()).searchParams.get('partner_id')).toBe(
          cluster.secrets.marketplaceApps[provider].partnerId,
        );
        await marketPage.locator('input[name="shop_id"]').first().check();
        await marketPage.getByRole('button', { name: 'Confirm Authorization' }).click();
        await marketPage.waitForURL(
          (url) =>
            url.pathname === '/connections' &&
            url.searchParams.has('connected') &&
            !accountIds.includes(url.searchParams.get('connected')!),
        );
        const accountId = new URL(marketPage.url()).searchParams.get('connected')!;
        expect(accountId).toMatch(/^acct_/);
        accountIds.push(accountId);
        await marketPage.locator(`tr[data-account-id="${accountId}"]`).waitFor();
      }
      expect(new Set(accountIds).size).toBe(3);

      // The connections page: three rows, three account ids, the three apps by name, one shop id.
      await marketPage.goto(`${portal}/connections`);
      const rows = marketPage.locator('table[data-testid="connections"] tbody tr');
      await rows.nth(2).waitFor();
      expect(await rows.count()).toBe(3);
      const cells = await rows.evaluateAll((trs) =>
        trs.map((tr) => ({
          accountId: tr.getAttribute('data-account-id'),
          cells: [...tr.querySelectorAll('td')].map((td) => td.textContent ?? ''),
        })),
      );
      expect(cells.map((row) => row.accountId).sort()).toEqual([...accountIds].sort());
      expect(cells.map((row) => row.cells[0]).sort()).toEqual([...accountIds].sort());
      expect(cells.map((row) => row.cells[1]).sort()).toEqual(apps.map(([, label]) => label).sort());
      const shopIds = new Set(cells.map((row) => row.cells[2]));
      expect(shopIds.size).toBe(1);
      expect([...shopIds][0]).toMatch(/^\d+$/);
      await marketPage.getByText('3 of 3 connections used on your plan.').waitFor();
    } finally {
      await marketContext.close();
    }
  }, 120_000);

  it('connects search-ads: generates the key, registers it on the platform page, enters the ids, picks the org', async () => {
    const adsContext = await browser.newContext();
    const adsPage = await adsContext.newPage();
    try {
      await adsPage.goto(`${portal}/sign-up`);
      await adsPage.getByLabel('Name').fill('Search Ads Tester');
      await adsPage.getByLabel('Email').fill(`a-${randomBytes(4).toString('hex')}@example.test`);
      await adsPage.getByLabel('Password').fill('a long enough passphrase');
      await adsPage.getByRole('button', { name: 'Create account' }).click();
      await adsPage.waitForURL(`${portal}/connections`);

      // 1. The portal makes the key pair and shows the public key only, with the platform's API-user page.
      await adsPage.getByRole('button', { name: 'Connect Search ads' }).click();
      await adsPage.waitForURL(`${portal}/connections/search-ads`);
      await adsPage.getByRole('button', { name: 'Generate key' }).click();
      const publicKey = (await adsPage.getByTestId('public-key').textContent())!;
      expect(publicKey).toMatch(/^-----BEGIN PUBLIC KEY-----/);
      expect(await adsPage.content()).not.toContain('PRIVATE KEY');
      const link = adsPage.getByTestId('api-users-link');
      expect(await link.getAttribute('href')).toBe(`${cluster.sandbox.url}/search-ads-auth/api-users`);

      // 2. On the platform's page (opened from the portal's link): paste the public key, save, read the three ids.
      const [platform] = await Promise.all([adsContext.waitForEvent('page'), link.click()]);
      await platform.waitForLoadState();
      expect(platform.url()).toBe(`${cluster.sandbox.url}/search-ads-auth/api-users`);
      await platform.locator('#public_key').fill(publicKey);
      await platform.getByRole('button', { name: 'Save' }).click();
      await platform.locator('#client-id').waitFor();
      const ids = {
        client: (await platform.locator('#client-id').textContent())!.trim(),
        team: (await platform.locator('#team-id').textContent())!.trim(),
        key: (await platform.locator('#key-id').textContent())!.trim(),
      };
      await platform.close();

      // A wrong key id first: the portal says the ids or the registered key do not match.
      await adsPage.getByLabel('Client ID').fill(ids.client);
      await adsPage.getByLabel('Team ID').fill(ids.team);
      await adsPage.getByLabel('Key ID').fill(`${ids.key.slice(0, -4)}0000`);
      await adsPage.getByRole('button', { name: 'Check API user' }).click();
      await expect(adsPage.locator('[data-testid="step-ids"] .flash.error').textContent()).resolves.toMatch(
        /client id, team id and key id/,
      );

      // 3. The right ids: the organizations of the API user; pick one and connect.
      await adsPage.getByLabel('Key ID').fill(ids.key);
      await adsPage.getByRole('button', { name: 'Check API user' }).click();
      await adsPage.locator('input[name="org_id"]').first().check();
      await adsPage.getByRole('button', { name: 'Connect organization' }).click();
      const accountId = (await adsPage.getByTestId('connected-account-id').textContent())!.trim();
      expect(accountId).toMatch(/^acct_[0-9A-Za-z]{20}$/);
      expect(await adsPage.content()).not.toContain('PRIVATE KEY');

      // The connection is listed; a key holding search-ads calls the REST gateway with it.
      await adsPage.getByRole('link', { name: 'Back to connections' }).click();
      await adsPage.locator(`tr[data-account-id="${accountId}"]`).waitFor();
      await adsPage.getByRole('link', { name: 'Keys' }).click();
      await adsPage.waitForURL(`${portal}/keys`);
      await adsPage.getByLabel('Name').fill('search ads key');
      await adsPage.getByLabel('Video ads').uncheck();
      await adsPage.getByLabel('Search ads').check();
      await adsPage.getByRole('button', { name: 'Create key' }).click();
      const secret = (await adsPage.getByTestId('secret').textContent())!.trim();
      const response = await fetch(`${edge}/v1/search-ads/api/v5/campaigns?limit=5`, {
        headers: { 'X-API-Key': secret, 'X-Account-Id': accountId },
      });
      expect(response.status).toBe(200);
    } finally {
      await adsContext.close();
    }
  }, 120_000);
});
