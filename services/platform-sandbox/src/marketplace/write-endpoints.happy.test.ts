import type { LoggedRequest } from '../control/request-log';
import type { Harness } from '../testing/sandbox.harness';
import {
  marketCall,
  mintMarketGrant,
  MY_CB_SHOP,
  startMarketSandbox,
  type AppName,
} from './testing/marketplace.harness';

const WRITES: [AppName, string, Record<string, unknown>][] = [
  ['seller', '/api/v2/order/cancel_order', { order_sn: '261101ABCDEFGH', cancel_reason: 'OUT_OF_STOCK' }],
  ['seller', '/api/v2/logistics/ship_order', { order_sn: '261101ABCDEFGH', pickup: { address_id: 1 } }],
  ['seller', '/api/v2/product/add_item', { item_name: 'New Tumbler', original_price: 12.5, category_id: 100_123 }],
  ['seller', '/api/v2/product/update_item', { item_id: 10_000_123_456, item_name: 'Renamed' }],
  ['ads', '/api/v2/ads/create_product_level_campaign', { budget: 100, start_date: '01-12-2026', item_id_list: [1] }],
  ['ads', '/api/v2/ads/edit_product_level_campaign_setting_info', { campaign_id: 6_200_000_001, edit_action: 'pause' }],
];

describe('marketplace write endpoints', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await startMarketSandbox();
  });
  afterAll(() => h.close());

  it('answers every write with success and records it in the request log', async () => {
    const grants = {
      seller: await mintMarketGrant(h, 'seller', MY_CB_SHOP),
      ads: await mintMarketGrant(h, 'ads', MY_CB_SHOP),
      affiliate: await mintMarketGrant(h, 'affiliate', MY_CB_SHOP),
    };
    const since = h.sandbox.requestLog?.lastSeq() ?? 0;
    for (const [app, path, body] of WRITES) {
      const answer = await marketCall(h, app, 'POST', path, { grant: grants[app], body });
      expect(answer.status).toBe(200);
      expect(answer.body).toMatchObject({ error: '', message: '' });
      expect(answer.body).toHaveProperty('response');
    }
    const response = await fetch(`${h.url}/_sandbox/requests?since=${since}&path_prefix=/marketplace`);
    const { requests } = (await response.json()) as { requests: LoggedRequest[] };
    expect(requests.map((entry) => `${entry.method} ${entry.path}`)).toEqual(
      WRITES.map(([, path]) => `POST /marketplace${path}`),
    );
    expect(JSON.parse(requests[0]?.body ?? '{}')).toEqual(WRITES[0]?.[2]);
  });

  it('needs a valid sign and token on writes, like reads', async () => {
    const grant = await mintMarketGrant(h, 'seller', MY_CB_SHOP);
    const body = { order_sn: '261101ABCDEFGH', cancel_reason: 'OUT_OF_STOCK' };
    const badSign = await marketCall(h, 'seller', 'POST', '/api/v2/order/cancel_order', {
      grant,
      body,
      sign: '0'.repeat(64),
    });
    expect(badSign.body.error).toBe('error_sign');
    const badToken = await marketCall(h, 'seller', 'POST', '/api/v2/order/cancel_order', {
      grant: { access_token: '0'.repeat(32), shop_id: MY_CB_SHOP.shop_id },
      body,
    });
    expect(badToken.body.error).toBe('error_auth');
    const missingField = await marketCall(h, 'seller', 'POST', '/api/v2/order/cancel_order', {
      grant,
      body: { order_sn: '261101ABCDEFGH' },
    });
    expect(missingField.body.error).toBe('error_param');
  });

  it('answers a write sent as GET like an unknown path', async () => {
    const grant = await mintMarketGrant(h, 'seller', MY_CB_SHOP);
    const { status, body } = await marketCall(h, 'seller', 'GET', '/api/v2/order/cancel_order', { grant });
    expect(status).toBe(404);
    expect(body.error).toBe('error_not_found');
  });
});
