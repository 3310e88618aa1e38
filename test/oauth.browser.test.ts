import { startGatewayCluster, type GatewayCluster, type RunningService } from '@gateway/testing';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startOAuthWithMcp, testDatabaseUri, testNatsUrl } from './harness';

/**
 * The assistant sign-in in a real browser (Debian's chromium through playwright-core, headless), as a customer
 * meets it: an account made in the portal's web app signs in on oauth-server's page and consents; the browser is
 * sent to the assistant's callback (the pages' CSP and cookies must allow that); the assistant's tokens reach
 * mcp-server; the key "Chat Assistant (OAuth)" appears on the portal's Keys page, and revoking it there ends access.
 */
const CHROMIUM = '/usr/bin/chromium';
const CALLBACK = 'https://chat.assistant.test/api/mcp/auth_callback';
const PASSWORD = 'a long enough passphrase';
const describeWithChromium = existsSync(CHROMIUM) ? describe : describe.skip;

let cluster: GatewayCluster;
let oauth: RunningService;
let browser: Browser;
let page: Page;
let portal: string;
let mcpUrl: string;

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) return;
  const mongoUri = testDatabaseUri();
  cluster = await startGatewayCluster({ mongoUri, natsUrl: testNatsUrl(), edges: 0, actors: 1 });
  ({ oauth, mcpUrl } = await startOAuthWithMcp(cluster, {
    mongoUri,
    natsUrl: testNatsUrl(),
    oauthEnv: { CHAT_ASSISTANT_REDIRECT_URIS: CALLBACK },
  }));
  portal = (await cluster.startPortal({ LOG_LEVEL: 'error' })).url;
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
  page = await (await browser.newContext()).newPage();
  page.on('dialog', (dialog) => void dialog.accept());
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await oauth?.stop();
  await cluster?.stop();
});

async function mcpStatus(accessToken: string): Promise<number> {
  const response = await fetch(mcpUrl, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${accessToken}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
  });
  await response.text();
  return response.status;
}

describeWithChromium('assistant sign-in in a browser (spec 5.3)', () => {
  it('signs in with the portal account, consents, reaches the callback, and the portal revokes it', async () => {
    const email = `ob-${randomBytes(4).toString('hex')}@example.test`;
    await page.goto(`${portal}/sign-up`);
    await page.getByLabel('Name').fill('Browser Assistant User');
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.waitForURL(`${portal}/connections`);
    await page.getByRole('button', { name: 'Connect Video ads' }).click();
    await page.waitForURL((url) => url.toString().startsWith(`${cluster.sandbox.url}/portal/auth`));
    await page.locator('input[name="bc_id"]').first().check();
    await page.getByRole('button', { name: 'Authorize' }).click();
    await page.waitForURL((url) => url.pathname === '/connections' && url.searchParams.has('connected'));
    const accountId = new URL(page.url()).searchParams.get('connected')!;

    const verifier = randomBytes(48).toString('base64url');
    const state = randomBytes(8).toString('hex');
    const authorize = new URL(`${oauth.url}/authorize`);
    for (const [name, value] of Object.entries({
      response_type: 'code',
      client_id: 'chat-assistant',
      redirect_uri: CALLBACK,
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
      state,
      resource: mcpUrl,
    })) {
      authorize.searchParams.set(name, value);
    }
    await page.goto(authorize.toString());
    await page.getByRole('heading', { name: 'Sign in to connect Chat Assistant' }).waitFor();
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill('not the password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText('The email or password is wrong.').waitFor();
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Allow Chat Assistant to read your data?' }).waitFor();
    expect(await page.content()).toContain(accountId);
    // The assistant's callback is not a real host: the test answers for it, so the browser's visit ends on a page
    // rather than on an error page, which a busy machine could commit after the next navigation had begun.
    await page.route(`${CALLBACK}**`, (route) =>
      route.fulfill({ status: 200, contentType: 'text/plain', body: 'the assistant received the code' }),
    );
    const arrival = page.waitForRequest((request) => request.url().startsWith(CALLBACK));
    await page.getByRole('button', { name: 'Allow' }).click();
    const callback = new URL((await arrival).url());
    await page.waitForURL(`${CALLBACK}**`);
    expect(callback.searchParams.get('state')).toBe(state);
    expect(callback.searchParams.get('iss')).toBe(oauth.url);

    const token = await fetch(`${oauth.url}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code: callback.searchParams.get('code')!,
        redirect_uri: CALLBACK,
        code_verifier: verifier,
        client_id: 'chat-assistant',
      }).toString(),
    });
    expect(token.status).toBe(200);
    const { access_token: accessToken } = (await token.json()) as { access_token: string };
    expect(await mcpStatus(accessToken)).toBe(200);

    // The permission is the key the portal lists; revoking it there ends the assistant's access.
    await page.goto(`${portal}/keys`);
    const row = page.locator('tr[data-key-id]', { hasText: 'Chat Assistant (OAuth)' });
    await row.waitFor();
    expect(await row.textContent()).toContain('Assistant sign-in');
    await row.getByRole('button', { name: 'Revoke' }).click();
    await row.locator('.badge.revoked').waitFor();
    expect(await mcpStatus(accessToken)).toBe(401);
  }, 120_000);
});
