import type { Harness } from '../testing/sandbox.harness';
import {
  isoDay,
  marketCall,
  mintMarketGrant,
  MY_CB_SHOP,
  SG_SHOP,
  startMarketSandbox,
  TH_SHOP,
  type MintedMarketGrant,
} from './testing/marketplace.harness';

const DAY_S = 86_400;

describe('marketplace read endpoints, called as a client of the real platform', () => {
  let h: Harness;
  let seller: MintedMarketGrant;
  let ads: MintedMarketGrant;
  let affiliate: MintedMarketGrant;
  let now: number;

  beforeAll(async () => {
    h = await startMarketSandbox();
    now = Math.floor(h.clock.ms / 1000);
    seller = await mintMarketGrant(h, 'seller', MY_CB_SHOP);
    ads = await mintMarketGrant(h, 'ads', TH_SHOP);
    affiliate = await mintMarketGrant(h, 'affiliate', SG_SHOP);
  });
  afterAll(() => h.close());

  describe('seller app', () => {
    it('answers get_shop_info with its fields at the top level and no response object', async () => {
      const { status, body } = await marketCall(h, 'seller', 'GET', '/api/v2/shop/get_shop_info', { grant: seller });
      expect(status).toBe(200);
      expect(body).toMatchObject({
        error: '',
        message: '',
        shop_name: MY_CB_SHOP.shop_name,
        region: 'MY',
        status: 'NORMAL',
        is_cb: true,
        merchant_id: MY_CB_SHOP.merchant_id,
      });
      expect(body.request_id).toMatch(/^[0-9a-f]{32}$/);
      expect(body).not.toHaveProperty('response');
      expect(typeof body.auth_time).toBe('number');
      expect(body.expire_time).toBeGreaterThan(body.auth_time as number);
    });

    it('pages the order list to its end with the cursor, each order once, within the 15-day window', async () => {
      const seen = new Set<string>();
      let cursor = '';
      let pages = 0;
      for (;;) {
        const { body } = await marketCall<{
          response: { more: boolean; next_cursor: string; order_list: { order_sn: string; order_status: string }[] };
        }>(h, 'seller', 'GET', '/api/v2/order/get_order_list', {
          grant: seller,
          query: {
            time_range_field: 'create_time',
            time_from: now - 15 * DAY_S,
            time_to: now,
            page_size: 20,
            ...(cursor === '' ? {} : { cursor }),
          },
        });
        expect(body.error).toBe('');
        for (const order of body.response.order_list) {
          expect(seen.has(order.order_sn)).toBe(false);
          seen.add(order.order_sn);
        }
        pages += 1;
        if (!body.response.more) {
          expect(body.response.next_cursor).toBe('');
          break;
        }
        cursor = body.response.next_cursor;
      }
      expect(pages).toBeGreaterThan(1);
      expect(seen.size).toBeGreaterThan(20);
    });

    it('gives order details with the optional fields asked for, repeated or comma-joined', async () => {
      const list = await marketCall<{ response: { order_list: { order_sn: string }[] } }>(
        h,
        'seller',
        'GET',
        '/api/v2/order/get_order_list',
        {
          grant: seller,
          query: { time_range_field: 'update_time', time_from: now - 10 * DAY_S, time_to: now, page_size: 3 },
        },
      );
      const sns = list.body.response.order_list.map((order) => order.order_sn);
      expect(sns).toHaveLength(3);
      type Detail = { response: { order_list: Record<string, unknown>[] } };
      const joined = await marketCall<Detail>(h, 'seller', 'GET', '/api/v2/order/get_order_detail', {
        grant: seller,
        query: { order_sn_list: sns.join(','), response_optional_fields: 'total_amount,item_list' },
      });
      const repeated = await marketCall<Detail>(h, 'seller', 'GET', '/api/v2/order/get_order_detail', {
        grant: seller,
        query: { order_sn_list: sns, response_optional_fields: ['total_amount', 'item_list'] },
      });
      expect(repeated.body.response).toEqual(joined.body.response);
      const first = joined.body.response.order_list[0] as Record<string, unknown>;
      expect(first).toMatchObject({ order_sn: sns[0], region: 'MY', currency: 'MYR' });
      expect(typeof first.total_amount).toBe('number');
      expect(Array.isArray(first.item_list)).toBe(true);

      const plain = await marketCall<Detail>(h, 'seller', 'GET', '/api/v2/order/get_order_detail', {
        grant: seller,
        query: { order_sn_list: sns[0] as string },
      });
      expect(plain.body.response.order_list[0]).not.toHaveProperty('item_list');
    });

    it('pages the item list by offset to its end, with repeated item_status values, and refuses them comma-joined', async () => {
      const ids: number[] = [];
      let offset = 0;
      let total = -1;
      for (;;) {
        const { body } = await marketCall<{
          response: { item: { item_id: number }[]; total_count: number; has_next_page: boolean; next_offset: number };
        }>(h, 'seller', 'GET', '/api/v2/product/get_item_list', {
          grant: seller,
          query: { offset, page_size: 10, item_status: ['NORMAL', 'UNLIST'] },
        });
        expect(body.error).toBe('');
        total = body.response.total_count;
        ids.push(...body.response.item.map((item) => item.item_id));
        if (!body.response.has_next_page) break;
        offset = body.response.next_offset;
      }
      expect(ids).toHaveLength(total);
      expect(new Set(ids).size).toBe(total);

      // The platform documents item_status as repeated: a comma-joined value is one status, and not a known one.
      const joined = await marketCall<{ error: string; message: string; response?: unknown }>(
        h,
        'seller',
        'GET',
        '/api/v2/product/get_item_list',
        { grant: seller, query: { offset: 0, page_size: 10, item_status: 'NORMAL,UNLIST' } },
      );
      expect(joined.status).toBe(200);
      expect(joined.body).toMatchObject({
        error: 'error_param',
        message: expect.stringMatching(/^item_status must be among/),
      });
      expect(joined.body.response).toBeUndefined();

      const info = await marketCall<{ response: { item_list: Record<string, unknown>[] } }>(
        h,
        'seller',
        'GET',
        '/api/v2/product/get_item_base_info',
        { grant: seller, query: { item_id_list: ids.slice(0, 5).join(',') } },
      );
      expect(info.body.response.item_list.map((item) => item.item_id)).toEqual(ids.slice(0, 5));
      // The reference gives no form for item_id_list: repeated is taken as well as comma-joined.
      const repeated = await marketCall<{ response: { item_list: Record<string, unknown>[] } }>(
        h,
        'seller',
        'GET',
        '/api/v2/product/get_item_base_info',
        { grant: seller, query: { item_id_list: ids.slice(0, 5) } },
      );
      expect(repeated.body.response.item_list.map((item) => item.item_id)).toEqual(ids.slice(0, 5));
      expect(info.body.response.item_list[0]).toMatchObject({
        price_info: [expect.objectContaining({ currency: 'MYR' })],
      });
    });

    it('writes item ids above 2^32 as bare JSON numbers in the raw body', async () => {
      const { text, body } = await marketCall<{ response: { item: { item_id: number }[] } }>(
        h,
        'seller',
        'GET',
        '/api/v2/product/get_item_list',
        { grant: seller, query: { offset: 0, page_size: 5, item_status: 'NORMAL' } },
      );
      const id = body.response.item[0]?.item_id as number;
      expect(id).toBeGreaterThan(2 ** 32);
      expect(Number.isSafeInteger(id)).toBe(true);
      expect(text).toContain(`"item_id":${id}`);
      const info = await marketCall(h, 'seller', 'GET', '/api/v2/shop/get_shop_info', { grant: seller });
      expect(info.text).toContain(`"merchant_id":${MY_CB_SHOP.merchant_id}`);
    });
  });

  describe('ads app', () => {
    it('answers the total balance', async () => {
      const { body } = await marketCall<{ response: { data_timestamp: number; total_balance: number } }>(
        h,
        'ads',
        'GET',
        '/api/v2/ads/get_total_balance',
        { grant: ads },
      );
      expect(body.error).toBe('');
      expect(body.response.data_timestamp).toBe(now);
      expect(typeof body.response.total_balance).toBe('number');
    });

    it('answers shop-level daily performance as an array of days in DD-MM-YYYY', async () => {
      const start = isoDay(h.clock.ms, -7);
      const end = isoDay(h.clock.ms, -1);
      const { body } = await marketCall<{ response: Record<string, unknown>[] }>(
        h,
        'ads',
        'GET',
        '/api/v2/ads/get_all_cpc_ads_daily_performance',
        { grant: ads, query: { start_date: start.ddmmyyyy, end_date: end.ddmmyyyy } },
      );
      expect(body.error).toBe('');
      expect(Array.isArray(body.response)).toBe(true);
      expect(body.response).toHaveLength(7);
      expect(body.response[0]).toMatchObject({ date: start.ddmmyyyy });
      for (const key of [
        'impression',
        'clicks',
        'ctr',
        'direct_order',
        'direct_gmv',
        'broad_gmv',
        'expense',
        'direct_roas',
      ]) {
        expect(typeof body.response[6]?.[key]).toBe('number');
      }
      expect(body.response[6]?.impression).toBeGreaterThan(0);
    });

    it('pages the campaign id list by offset to its end and reads campaign daily performance', async () => {
      const ids: number[] = [];
      let offset = 0;
      for (;;) {
        const { body } = await marketCall<{
          response: {
            shop_id: number;
            region: string;
            has_next_page: boolean;
            campaign_list: { campaign_id: number }[];
          };
        }>(h, 'ads', 'GET', '/api/v2/ads/get_product_level_campaign_id_list', {
          grant: ads,
          query: { ad_type: 'all', offset, limit: 5 },
        });
        expect(body.response).toMatchObject({ shop_id: TH_SHOP.shop_id, region: 'TH' });
        ids.push(...body.response.campaign_list.map((campaign) => campaign.campaign_id));
        if (!body.response.has_next_page) break;
        offset += body.response.campaign_list.length;
      }
      expect(ids.length).toBeGreaterThanOrEqual(14);
      expect(new Set(ids).size).toBe(ids.length);
      expect(ids.some((id) => id > 2 ** 32)).toBe(true);

      const manual = await marketCall<{ response: { campaign_list: { ad_type: string }[] } }>(
        h,
        'ads',
        'GET',
        '/api/v2/ads/get_product_level_campaign_id_list',
        { grant: ads, query: { ad_type: 'manual', offset: 0, limit: 5000 } },
      );
      expect(manual.body.response.campaign_list.every((campaign) => campaign.ad_type === 'manual')).toBe(true);

      const big = ids.find((id) => id > 2 ** 32) as number;
      const chosen = [ids[0] as number, big];
      const { text, body } = await marketCall<{
        response: { shop_id: number; campaign_list: { campaign_id: number; metrics_list: unknown[] }[] }[];
      }>(h, 'ads', 'GET', '/api/v2/ads/get_product_campaign_daily_performance', {
        grant: ads,
        query: {
          start_date: isoDay(h.clock.ms, -3).ddmmyyyy,
          end_date: isoDay(h.clock.ms, -1).ddmmyyyy,
          campaign_id_list: chosen.join(','),
        },
      });
      expect(body.error).toBe('');
      expect(Array.isArray(body.response)).toBe(true);
      expect(body.response[0]?.shop_id).toBe(TH_SHOP.shop_id);
      expect(body.response[0]?.campaign_list.map((campaign) => campaign.campaign_id)).toEqual(chosen);
      expect(body.response[0]?.campaign_list[0]?.metrics_list).toHaveLength(3);
      expect(text).toContain(`"campaign_id":${big}`);
      expect(text).toContain(`"shop_id":${TH_SHOP.shop_id}`);
    });
  });

  describe('affiliate app', () => {
    it('answers shop performance with money as strings', async () => {
      const { body } = await marketCall<{ response: Record<string, unknown> }>(
        h,
        'affiliate',
        'GET',
        '/api/v2/ams/get_shop_performance',
        {
          grant: affiliate,
          query: {
            period_type: 'Last30d',
            start_date: isoDay(h.clock.ms, -30).yyyymmdd,
            end_date: isoDay(h.clock.ms, -1).yyyymmdd,
            order_type: 'ConfirmedOrder',
            channel: 'AllChannel',
          },
        },
      );
      expect(body.error).toBe('');
      expect(body.response.sales).toMatch(/^\d+\.\d{2}$/);
      expect(body.response.est_commission).toMatch(/^\d+\.\d{2}$/);
      expect(typeof body.response.orders).toBe('number');
      expect(body.response.orders).toBeGreaterThan(0);
      for (const key of ['clicks', 'roi', 'total_buyers', 'new_buyers', 'fetched_date_range']) {
        expect(body.response).toHaveProperty(key);
      }
    });

    it('pages the conversion report by page_no to its end', async () => {
      const seen = new Set<string>();
      let pageNo = 1;
      let total = 0;
      for (;;) {
        const { body, text } = await marketCall<{
          response: {
            list: { order_sn: string; affiliate_id: number; items: { actual_amount: string }[] }[];
            total_count: number;
            has_more: boolean;
          };
        }>(h, 'affiliate', 'GET', '/api/v2/ams/get_conversion_report', {
          grant: affiliate,
          query: {
            page_no: pageNo,
            page_size: 50,
            place_order_time_start: now - 60 * DAY_S,
            place_order_time_end: now,
          },
        });
        expect(body.error).toBe('');
        total = body.response.total_count;
        for (const row of body.response.list) {
          seen.add(row.order_sn);
          expect(typeof row.affiliate_id).toBe('number');
          expect(text).toContain(`"affiliate_id":${row.affiliate_id}`);
          expect(typeof row.items[0]?.actual_amount).toBe('string');
        }
        if (!body.response.has_more) break;
        pageNo += 1;
      }
      expect(pageNo).toBeGreaterThan(1);
      expect(seen.size).toBe(total);
    });

    it('answers the last report date in YYYY-MM-DD', async () => {
      const { body } = await marketCall<{ response: { last_report_date: string } }>(
        h,
        'affiliate',
        'GET',
        '/api/v2/ams/get_performance_data_update_time',
        { grant: affiliate, query: { marker_type: 'AmsMarker' } },
      );
      expect(body.response.last_report_date).toBe(new Date(h.clock.ms - 86_400_000).toISOString().slice(0, 10));
    });
  });

  it('answers the same data on every read (deterministic per shop)', async () => {
    const read = () =>
      marketCall(h, 'seller', 'GET', '/api/v2/product/get_item_list', {
        grant: seller,
        query: { offset: 0, page_size: 100, item_status: 'NORMAL' },
      });
    expect((await read()).body.response).toEqual((await read()).body.response);
  });
});
