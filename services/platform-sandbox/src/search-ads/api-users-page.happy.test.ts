import type { Harness } from '../testing/sandbox.harness';
import {
  apiCall,
  EU_ORG,
  newKeyPair,
  startSearchAdsSandbox,
  tokenFor,
  type ApiClient,
} from './testing/search-ads.harness';

function textOf(html: string, id: string): string {
  const match = new RegExp(`id="${id}">([^<]*)<`).exec(html);
  if (!match) throw new Error(`no element #${id}`);
  return match[1] as string;
}

describe('search-ads API user page', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await startSearchAdsSandbox();
  });
  afterAll(() => h.close());

  it('takes a public key and an org choice and shows clientId, teamId and keyId that a client then uses', async () => {
    const form = await fetch(`${h.url}/search-ads-auth/api-users`);
    expect(form.status).toBe(200);
    const page = await form.text();
    expect(page).toContain('<textarea');
    expect(page).toContain(`value="${EU_ORG.orgId}"`);

    const keys = newKeyPair();
    const submitted = await fetch(`${h.url}/search-ads-auth/api-users`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams([
        ['public_key', keys.publicKeyPem],
        ['org_id', String(EU_ORG.orgId)],
      ]).toString(),
    });
    expect(submitted.status).toBe(201);
    const shown = await submitted.text();
    const client: ApiClient = {
      ...keys,
      client_id: textOf(shown, 'client-id'),
      team_id: textOf(shown, 'team-id'),
      key_id: textOf(shown, 'key-id'),
      org_ids: [EU_ORG.orgId],
    };
    expect(client.client_id).toMatch(/^SEARCHADS\.[0-9a-f-]{36}$/);
    expect(client.team_id).toMatch(/^SEARCHADS\.[0-9a-f-]{36}$/);
    expect(client.key_id).toMatch(/^[0-9a-f-]{36}$/);

    const { status, body } = await tokenFor(h, client);
    expect(status).toBe(200);
    const acls = await apiCall<{ orgId: number }[]>(h, 'GET', '/acls', { token: body.access_token as string });
    expect(acls.body.data.map((org) => org.orgId)).toEqual([EU_ORG.orgId]);
  });

  it('refuses a key that is not EC P-256, and an empty org choice', async () => {
    const post = (body: URLSearchParams) =>
      fetch(`${h.url}/search-ads-auth/api-users`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: body.toString(),
      });
    const noOrg = await post(new URLSearchParams([['public_key', newKeyPair().publicKeyPem]]));
    expect(noOrg.status).toBe(400);
    const bad = await post(
      new URLSearchParams([
        ['public_key', 'hello'],
        ['org_id', String(EU_ORG.orgId)],
      ]),
    );
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain('id="error"');
  });

  it('lists the orgs and registers API users on the control routes', async () => {
    const orgs = await fetch(`${h.url}/_sandbox/search-ads/orgs`).then((r) => r.json() as Promise<{ orgs: unknown[] }>);
    expect(orgs.orgs).toHaveLength(3);
    const response = await fetch(`${h.url}/_sandbox/search-ads/api-users`, {
      method: 'POST',
      body: JSON.stringify({ public_key_pem: newKeyPair().publicKeyPem, org_ids: [EU_ORG.orgId] }),
    });
    expect(response.status).toBe(201);
    expect(await response.json()).toMatchObject({
      org_ids: [EU_ORG.orgId],
      client_id: expect.stringMatching(/^SEARCHADS\./),
    });
    const unknownOrg = await fetch(`${h.url}/_sandbox/search-ads/api-users`, {
      method: 'POST',
      body: JSON.stringify({ public_key_pem: newKeyPair().publicKeyPem, org_ids: [1] }),
    });
    expect(unknownOrg.status).toBe(400);
  });
});
