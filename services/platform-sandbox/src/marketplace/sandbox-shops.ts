/**
 * The marketplace sandbox's fixed shops. Each one can be granted to each of the three partner apps; the
 * data of a shop is generated from its id, so it is the same on every run. Ids are JSON numbers on this
 * platform; two shops have ids above 2^32 (kept below 2^53 so our own JSON stays exact).
 */
export interface MarketShop {
  shop_id: number;
  shop_name: string;
  region: 'SG' | 'MY' | 'TH';
  currency: 'SGD' | 'MYR' | 'THB';
  is_cb: boolean;
  /** Cross-border shops belong to a merchant; local shops have none. */
  merchant_id: number | null;
}

export const MARKET_SHOPS: readonly MarketShop[] = [
  {
    shop_id: 2048193577,
    shop_name: 'Harbour Lane Living SG',
    region: 'SG',
    currency: 'SGD',
    is_cb: false,
    merchant_id: null,
  },
  {
    shop_id: 8815620043,
    shop_name: 'Shenzhen Brightway Global MY',
    region: 'MY',
    currency: 'MYR',
    is_cb: true,
    merchant_id: 5203117896,
  },
  {
    shop_id: 60219874410,
    shop_name: 'Siam Kitchen Supply',
    region: 'TH',
    currency: 'THB',
    is_cb: false,
    merchant_id: null,
  },
];

export function findMarketShop(shopId: number): MarketShop | undefined {
  return MARKET_SHOPS.find((shop) => shop.shop_id === shopId);
}
