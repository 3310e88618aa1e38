/**
 * The video-shop sandbox's fixed sellers and their shops. A seller authorizes the app on the authorization
 * page; the grant then covers all of that seller's shops. Orders, products and statements are generated from
 * the shop ids, so they are the same on every run.
 */
export type SellerType = 'LOCAL' | 'CROSS_BORDER';

export interface SandboxShop {
  id: string;
  name: string;
  /** ISO 3166 region the shop sells in. */
  region: string;
  seller_type: SellerType;
  /** Opaque id the API wants as shop_cipher on shop-scoped calls. */
  cipher: string;
  code: string;
  /** Local currency of the shop's orders and statements. */
  currency: string;
}

export interface SandboxSeller {
  open_id: string;
  name: string;
  base_region: string;
  shops: readonly SandboxShop[];
}

export const SANDBOX_SELLERS: readonly SandboxSeller[] = [
  {
    open_id: 'nWxAqQAAAADp0rU8kd3Yq7bX2fL1sVhMcQ',
    name: 'Northwind Goods',
    base_region: 'US',
    shops: [
      {
        id: '7495001834820044801',
        name: 'Northwind Goods US',
        region: 'US',
        seller_type: 'LOCAL',
        cipher: 'TTP_nWxAqQAAAABwE5gC7yZ0tK3dVqL2oA',
        code: 'USLCN7W2QK',
        currency: 'USD',
      },
      {
        id: '7495001834820044802',
        name: 'Northwind Goods UK',
        region: 'GB',
        seller_type: 'LOCAL',
        cipher: 'ROW_nWxAqQAAAACf0bq4aVQ3Xk9LmE1t-g',
        code: 'GBLCN7W5RM',
        currency: 'GBP',
      },
    ],
  },
  {
    open_id: 'Lm3h_QAAAAC8sTq1Wd0eZk4Rb7yNcJ2pXw',
    name: 'Shenzhen Lumen Trading Co., Ltd.',
    base_region: 'CN',
    shops: [
      {
        id: '7496112745190387713',
        name: 'Lumen Home US',
        region: 'US',
        seller_type: 'CROSS_BORDER',
        cipher: 'TTP_Lm3h_QAAAAD4kP0xVbS1uYc9Ho_7Rg',
        code: 'CNLCL8H3TZ',
        currency: 'USD',
      },
      {
        id: '7496112745190387714',
        name: 'Lumen Home UK',
        region: 'GB',
        seller_type: 'CROSS_BORDER',
        cipher: 'ROW_Lm3h_QAAAAAsQ2n8e5Wj0Ka6Xf3L1w',
        code: 'CNLCL8H4UA',
        currency: 'GBP',
      },
      {
        id: '7496112745190387715',
        name: 'Lumen Home MY',
        region: 'MY',
        seller_type: 'CROSS_BORDER',
        cipher: 'ROW_Lm3h_QAAAAB9dZr2Mh6Tq0Ye4Vn8Cs',
        code: 'CNLCL8H5VB',
        currency: 'MYR',
      },
    ],
  },
  {
    open_id: 'pXp4ZQAAAADk2Lw7Nc1Rv9Ta5Hq3Fm0YbE',
    name: 'Pixel Pantry Foods LLC',
    base_region: 'US',
    shops: [
      {
        id: '7497340019283746817',
        name: 'Pixel Pantry',
        region: 'US',
        seller_type: 'LOCAL',
        cipher: 'TTP_pXp4ZQAAAAB1mS8cWj3Kd6Ue0Rz4Gh',
        code: 'USLCP9X7WC',
        currency: 'USD',
      },
    ],
  },
];

export function findSeller(openId: string): SandboxSeller | undefined {
  return SANDBOX_SELLERS.find((seller) => seller.open_id === openId);
}

export function findSellerOfShop(shopId: string): SandboxSeller | undefined {
  return SANDBOX_SELLERS.find((seller) => seller.shops.some((shop) => shop.id === shopId));
}

/** Position of the shop in the fixed world (1-based); generated ids embed it so they never collide. */
export function shopOrdinal(shopId: string): number {
  return SANDBOX_SELLERS.flatMap((seller) => seller.shops).findIndex((shop) => shop.id === shopId) + 1;
}

/** The shop as the API lists it (the currency is ours, not part of the platform's shop record). */
export function shopRecord(shop: SandboxShop): object {
  return {
    id: shop.id,
    name: shop.name,
    region: shop.region,
    seller_type: shop.seller_type,
    cipher: shop.cipher,
    code: shop.code,
  };
}
