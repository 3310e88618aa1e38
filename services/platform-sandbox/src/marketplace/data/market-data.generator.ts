import { hashSeed, Prng } from '../../video-ads/data/prng';
import type { MarketShop } from '../sandbox-shops';

/**
 * Order statuses get_order_list filters on; the catalogue (libs/catalogue marketplace.ts) declares the same list.
 * INVOICE_PENDING is a status of regions with invoices before shipping: the sandbox's shops have no such orders.
 */
export const ORDER_STATUSES = [
  'UNPAID',
  'READY_TO_SHIP',
  'PROCESSED',
  'SHIPPED',
  'COMPLETED',
  'IN_CANCEL',
  'CANCELLED',
  'TO_RETURN',
  'INVOICE_PENDING',
] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

export const ITEM_STATUSES = ['NORMAL', 'BANNED', 'UNLIST', 'REVIEWING', 'SELLER_DELETE', 'SHOPEE_DELETE'] as const;
export type ItemStatus = (typeof ITEM_STATUSES)[number];

export const AMS_CHANNELS = ['SocialMedia', 'ShopeeVideo', 'LiveStreaming'] as const;
export type AmsChannel = (typeof AMS_CHANNELS)[number];

export interface ItemModel {
  item_id: number;
  category_id: number;
  item_name: string;
  item_sku: string;
  item_status: ItemStatus;
  create_time: number;
  update_time: number;
  /** In the shop currency, as the platform's float. */
  price: number;
  stock: number;
}

export interface OrderLine {
  item: ItemModel;
  quantity: number;
  discounted_price: number;
}

export interface OrderModel {
  order_sn: string;
  order_status: OrderStatus;
  create_time: number;
  update_time: number;
  lines: OrderLine[];
  shipping_fee: number;
  total_amount: number;
}

export interface CampaignModel {
  campaign_id: number;
  ad_type: 'auto' | 'manual';
  ad_name: string;
  /** Epoch day of its first delivery. */
  start_day: number;
}

export interface AdMetrics {
  impression: number;
  clicks: number;
  expense: number;
  direct_order: number;
  direct_gmv: number;
  broad_order: number;
  broad_gmv: number;
}

export interface ConversionModel {
  order_sn: string;
  order_status: 'Pending' | 'Completed' | 'Cancelled';
  place_order_time: number;
  affiliate_id: number;
  affiliate_name: string;
  channel: AmsChannel;
  buyer_type: 'New' | 'Existing';
  lines: { item: ItemModel; qty: number; amount: number; commission: number }[];
}

export interface MarketShopData {
  shop: MarketShop;
  /** Unix seconds: the start of the UTC day of the shop's first read; nothing generated is newer. */
  anchor: number;
  items: ItemModel[];
  /** Oldest first. */
  orders: OrderModel[];
  campaigns: CampaignModel[];
  /** Oldest first. */
  conversions: ConversionModel[];
  total_balance: number;
}

const DAY = 86_400;
const WINDOW_DAYS = 90;
const ADJECTIVES = [
  'Classic',
  'Compact',
  'Deluxe',
  'Bamboo',
  'Ceramic',
  'Foldable',
  'Insulated',
  'Mini',
  'Smart',
  'Cotton',
];
const NOUNS = [
  'Rice Cooker',
  'Tumbler',
  'Phone Case',
  'Wok',
  'Storage Box',
  'Desk Fan',
  'Bento Set',
  'Tote Bag',
  'Pillow',
];
const AFFILIATES = ['kimmy.reviews', 'dealhunter.my', 'homecook_th', 'techtalk.sg', 'mama.finds', 'gadget.guru'];
const SN_CHARS = '0123456789ABCDEFGHJKLMNPQRSTUVWXYZ';

/** Thai prices are whole baht; the others have cents. */
function price(shop: MarketShop, value: number): number {
  return shop.currency === 'THB' ? Math.round(value) : Math.round(value * 100) / 100;
}

function orderSn(prng: Prng, time: number): string {
  const date = new Date(time * 1000).toISOString();
  let sn = date.slice(2, 4) + date.slice(5, 7) + date.slice(8, 10);
  for (let i = 0; i < 8; i++) sn += SN_CHARS[prng.int(0, SN_CHARS.length - 1)];
  return sn;
}

function priceScale(shop: MarketShop): number {
  return shop.currency === 'THB' ? 25 : shop.currency === 'MYR' ? 3.3 : 1;
}

function generate(shop: MarketShop, anchor: number): MarketShopData {
  const prng = new Prng(`marketplace:${shop.shop_id}`);
  const scale = priceScale(shop);
  const start = anchor - WINDOW_DAYS * DAY;

  const items: ItemModel[] = [];
  const itemBase = 10_000_000_000 + (shop.shop_id % 997) * 40_000_000;
  const itemCount = prng.int(45, 110);
  for (let i = 0; i < itemCount; i++) {
    const create = start - prng.int(0, 200) * DAY + prng.int(0, DAY - 1);
    items.push({
      item_id: itemBase + i * 104_729 + prng.int(1, 9999),
      category_id: prng.int(100_001, 101_999),
      item_name: `${prng.pick(ADJECTIVES)} ${prng.pick(NOUNS)} ${i + 1}`,
      item_sku: `${shop.region}-SKU-${String(i + 1).padStart(4, '0')}`,
      item_status: prng.weighted<ItemStatus>([
        ['NORMAL', 80],
        ['UNLIST', 9],
        ['BANNED', 4],
        ['REVIEWING', 3],
        ['SELLER_DELETE', 3],
        ['SHOPEE_DELETE', 1],
      ]),
      create_time: create,
      update_time: Math.min(anchor - 1, create + prng.int(0, 280) * DAY + prng.int(0, DAY - 1)),
      price: price(shop, prng.range(4, 80) * scale),
      stock: prng.int(0, 500),
    });
  }
  const sellable = items.filter((item) => item.item_status === 'NORMAL');

  const orders: OrderModel[] = [];
  const orderCount = prng.int(300, 600);
  for (let i = 0; i < orderCount; i++) {
    const create = start + prng.int(0, WINDOW_DAYS * DAY - 1);
    const ageDays = (anchor - create) / DAY;
    const status: OrderStatus =
      ageDays < 2
        ? prng.pick(['UNPAID', 'READY_TO_SHIP', 'PROCESSED'] as const)
        : ageDays < 7
          ? prng.pick(['PROCESSED', 'SHIPPED', 'SHIPPED', 'IN_CANCEL'] as const)
          : prng.weighted<OrderStatus>([
              ['COMPLETED', 85],
              ['CANCELLED', 10],
              ['TO_RETURN', 5],
            ]);
    const lines: OrderLine[] = [];
    const lineCount = prng.int(1, 3);
    for (let l = 0; l < lineCount; l++) {
      const item = prng.pick(sellable);
      lines.push({ item, quantity: prng.int(1, 3), discounted_price: price(shop, item.price * prng.range(0.8, 1)) });
    }
    const shipping = price(shop, prng.pick([0, 0, 1.99, 2.99]) * scale);
    const total = price(shop, lines.reduce((sum, line) => sum + line.quantity * line.discounted_price, 0) + shipping);
    orders.push({
      order_sn: orderSn(prng, create),
      order_status: status,
      create_time: create,
      update_time: Math.min(anchor - 1, create + prng.int(60, 9 * DAY)),
      lines,
      shipping_fee: shipping,
      total_amount: total,
    });
  }
  orders.sort((a, b) => a.create_time - b.create_time || (a.order_sn < b.order_sn ? -1 : 1));

  const campaigns: CampaignModel[] = [];
  const campaignCount = prng.int(14, 32);
  for (let i = 0; i < campaignCount; i++) {
    // Every other campaign id is above 2^32, as on the platform today.
    const id =
      i % 2 === 0 ? 180_000_000 + prng.int(0, 9_999_999) * 10 + i : 6_200_000_000 + prng.int(0, 99_999_999) * 10 + i;
    const adType = prng.chance(0.4) ? 'auto' : 'manual';
    campaigns.push({
      campaign_id: id,
      ad_type: adType,
      ad_name: `${adType === 'auto' ? 'Auto' : 'Manual'} - ${prng.pick(ADJECTIVES)} ${prng.pick(NOUNS)}`,
      start_day: Math.floor(anchor / DAY) - prng.int(5, 150),
    });
  }

  const conversions: ConversionModel[] = [];
  const affiliates = AFFILIATES.map((name, index) => ({
    name,
    id:
      index % 2 === 0 ? 110_000_000 + (hashSeed(name) % 10_000_000) : 15_000_000_000 + (hashSeed(name) % 1_000_000_000),
  }));
  const conversionCount = prng.int(150, 400);
  for (let i = 0; i < conversionCount; i++) {
    const time = start + prng.int(0, WINDOW_DAYS * DAY - 1);
    const affiliate = prng.pick(affiliates);
    const rate = prng.pick([0.03, 0.05, 0.08, 0.1]);
    const lineCount = prng.int(1, 2);
    const lines: ConversionModel['lines'] = [];
    for (let l = 0; l < lineCount; l++) {
      const item = prng.pick(sellable);
      const qty = prng.int(1, 2);
      const amount = price(shop, item.price * qty);
      lines.push({ item, qty, amount, commission: Math.round(amount * rate * 100) / 100 });
    }
    const age = (anchor - time) / DAY;
    conversions.push({
      order_sn: orderSn(prng, time),
      order_status: age < 10 ? 'Pending' : prng.chance(0.08) ? 'Cancelled' : 'Completed',
      place_order_time: time,
      affiliate_id: affiliate.id,
      affiliate_name: affiliate.name,
      channel: prng.pick(AMS_CHANNELS),
      buyer_type: prng.chance(0.35) ? 'New' : 'Existing',
      lines,
    });
  }
  conversions.sort((a, b) => a.place_order_time - b.place_order_time || (a.order_sn < b.order_sn ? -1 : 1));

  return {
    shop,
    anchor,
    items,
    orders,
    campaigns,
    conversions,
    total_balance: price(shop, prng.range(50, 3000) * scale),
  };
}

/** Ad delivery of one campaign on one day, from the campaign id and the day alone. */
export function campaignDay(campaign: CampaignModel, day: number, anchorDay: number): AdMetrics {
  if (day < campaign.start_day || day >= anchorDay) {
    return { impression: 0, clicks: 0, expense: 0, direct_order: 0, direct_gmv: 0, broad_order: 0, broad_gmv: 0 };
  }
  const prng = new Prng(`${campaign.campaign_id}:${day}`);
  const impression = prng.int(200, 9000);
  const clicks = Math.round(impression * prng.range(0.005, 0.04));
  const expense = Math.round(clicks * prng.range(0.05, 0.4) * 100) / 100;
  const directOrder = Math.round(clicks * prng.range(0, 0.06));
  const broadOrder = directOrder + Math.round(clicks * prng.range(0, 0.03));
  const directGmv = Math.round(directOrder * prng.range(8, 40) * 100) / 100;
  const broadGmv = Math.round((directGmv + (broadOrder - directOrder) * prng.range(8, 40)) * 100) / 100;
  return {
    impression,
    clicks,
    expense,
    direct_order: directOrder,
    direct_gmv: directGmv,
    broad_order: broadOrder,
    broad_gmv: broadGmv,
  };
}

/** Generated data per shop, made on the first read and kept; the anchor is fixed at that moment. */
export class MarketWorld {
  private readonly shops = new Map<number, MarketShopData>();

  constructor(private readonly now: () => number) {}

  data(shop: MarketShop): MarketShopData {
    let data = this.shops.get(shop.shop_id);
    if (!data) {
      const anchor = Math.floor(this.now() / 1000 / DAY) * DAY;
      data = generate(shop, anchor);
      this.shops.set(shop.shop_id, data);
    }
    return data;
  }
}
