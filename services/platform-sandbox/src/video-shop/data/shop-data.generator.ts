import { Prng } from '../../video-ads/data/prng';
import { shopOrdinal, type SandboxShop } from '../sandbox-sellers';

export const ORDER_STATUSES = [
  'UNPAID',
  'ON_HOLD',
  'AWAITING_SHIPMENT',
  'PARTIALLY_SHIPPING',
  'AWAITING_COLLECTION',
  'IN_TRANSIT',
  'DELIVERED',
  'COMPLETED',
  'CANCELLED',
] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

export const SHIPPING_TYPES = ['TIKTOK', 'SELLER'] as const;
export type ShippingType = (typeof SHIPPING_TYPES)[number];

export const PRODUCT_STATUSES = [
  'DRAFT',
  'PENDING',
  'FAILED',
  'ACTIVATE',
  'SELLER_DEACTIVATED',
  'PLATFORM_DEACTIVATED',
  'FREEZE',
  'DELETED',
] as const;
export type ProductStatus = (typeof PRODUCT_STATUSES)[number];

export const PAYMENT_STATUSES = ['PAID', 'FAILED', 'PROCESSING'] as const;
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];

export interface SkuModel {
  id: string;
  seller_sku: string;
  /** Sale price in cents of the shop currency. */
  priceCents: number;
  inventory: { warehouse_id: string; quantity: number }[];
}

export interface ProductModel {
  id: string;
  title: string;
  status: ProductStatus;
  skus: SkuModel[];
  create_time: number;
  update_time: number;
}

export interface LineItemModel {
  id: string;
  product: ProductModel;
  sku: SkuModel;
  originalCents: number;
}

export interface OrderModel {
  id: string;
  status: OrderStatus;
  create_time: number;
  update_time: number;
  /** Undefined while unpaid (and for orders cancelled before payment). */
  paid_time: number | undefined;
  shipping_type: ShippingType;
  user_id: string;
  buyer_email: string;
  items: LineItemModel[];
  subTotalCents: number;
  shippingCents: number;
  taxCents: number;
  totalCents: number;
}

export interface StatementModel {
  id: string;
  statement_time: number;
  revenueCents: number;
  feeCents: number;
  settlementCents: number;
  payment_status: PaymentStatus;
}

export interface ShopData {
  shop: SandboxShop;
  /** Unix seconds; nothing generated is newer (the start of the UTC day the shop was first read). */
  anchor: number;
  products: ProductModel[];
  /** Oldest first. */
  orders: OrderModel[];
  /** Newest first. */
  statements: StatementModel[];
}

const DAY = 86_400;
const ORDER_WINDOW_DAYS = 90;
const LOCAL_PER_USD: Record<string, number> = { USD: 1, GBP: 0.79, EUR: 0.92, MYR: 4.7 };

/** Amount in the shop currency per US dollar (analytics answers in USD on request). */
export function localPerUsd(currency: string): number {
  return LOCAL_PER_USD[currency] ?? 1;
}

export function money(cents: number): string {
  return (cents / 100).toFixed(2);
}

const ADJECTIVES = ['Classic', 'Everyday', 'Compact', 'Deluxe', 'Organic', 'Bamboo', 'Linen', 'Smart', 'Cozy', 'Retro'];
const NOUNS = [
  'Desk Lamp',
  'Throw Blanket',
  'Coffee Mug',
  'Water Bottle',
  'Phone Stand',
  'Tote Bag',
  'Candle Set',
  'Snack Box',
  'Spice Jar',
  'Wall Clock',
  'Yoga Mat',
  'Notebook',
];
const VARIANTS = ['BLK', 'WHT', 'RED', 'GRN', 'S', 'M', 'L', 'XL'];

function pad(value: number, width: number): string {
  return String(value).padStart(width, '0');
}

function generateProducts(rng: Prng, shop: SandboxShop, ordinal: number, anchor: number): ProductModel[] {
  const factor = localPerUsd(shop.currency);
  const warehouses = Array.from(
    { length: rng.int(1, 2) },
    (_, w) => `73${pad(ordinal, 2)}${rng.digits(13)}${pad(w, 2)}`,
  );
  const count = rng.int(28, 48);
  const products: ProductModel[] = [];
  for (let p = 0; p < count; p++) {
    const created = anchor - rng.int(20 * DAY, 365 * DAY);
    const status = rng.weighted<ProductStatus>([
      ['ACTIVATE', 70],
      ['DRAFT', 6],
      ['PENDING', 5],
      ['SELLER_DEACTIVATED', 8],
      ['PLATFORM_DEACTIVATED', 3],
      ['FAILED', 3],
      ['FREEZE', 2],
      ['DELETED', 3],
    ]);
    const baseUsd = rng.range(4, 120);
    const title = `${rng.pick(ADJECTIVES)} ${rng.pick(NOUNS)}`;
    const skuCount = rng.int(1, 4);
    const skus: SkuModel[] = [];
    for (let s = 0; s < skuCount; s++) {
      // Every seventh product's first SKU is nearly sold out, so low-stock views always have rows.
      const low = (p % 7 === 3 && s === 0) || rng.chance(0.12);
      skus.push({
        id: `17${pad(ordinal, 2)}${rng.digits(9)}${pad(p, 3)}${pad(s + 1, 3)}`,
        seller_sku: `${shop.code.slice(4, 8)}-${pad(p + 1, 3)}-${VARIANTS[(p + s) % VARIANTS.length]}`,
        priceCents: Math.round(baseUsd * (1 + 0.1 * s) * factor * 100) - 1,
        inventory: warehouses.map((warehouse_id, w) => ({
          warehouse_id,
          quantity: low ? (w === 0 ? rng.int(0, 4) : 0) : rng.int(5, 600),
        })),
      });
    }
    products.push({
      id: `17${pad(ordinal, 2)}${rng.digits(10)}${pad(p, 5)}`,
      title,
      status,
      skus,
      create_time: created,
      update_time: created + rng.int(0, anchor - created),
    });
  }
  return products;
}

/** Older orders are further along their lifecycle. */
function statusFor(rng: Prng, ageDays: number): OrderStatus {
  if (ageDays < 1) {
    return rng.weighted<OrderStatus>([
      ['UNPAID', 12],
      ['ON_HOLD', 10],
      ['AWAITING_SHIPMENT', 55],
      ['AWAITING_COLLECTION', 15],
      ['CANCELLED', 8],
    ]);
  }
  if (ageDays < 4) {
    return rng.weighted<OrderStatus>([
      ['AWAITING_SHIPMENT', 25],
      ['PARTIALLY_SHIPPING', 8],
      ['AWAITING_COLLECTION', 17],
      ['IN_TRANSIT', 42],
      ['CANCELLED', 8],
    ]);
  }
  if (ageDays < 12) {
    return rng.weighted<OrderStatus>([
      ['IN_TRANSIT', 30],
      ['DELIVERED', 62],
      ['CANCELLED', 8],
    ]);
  }
  return rng.weighted<OrderStatus>([
    ['COMPLETED', 84],
    ['DELIVERED', 6],
    ['CANCELLED', 10],
  ]);
}

function generateOrders(rng: Prng, shop: SandboxShop, ordinal: number, anchor: number, products: ProductModel[]) {
  const sellable = products.filter((product) => product.status === 'ACTIVATE');
  const buyers = Array.from({ length: rng.int(70, 140) }, () => {
    const userId = `7${rng.int(1, 4)}${rng.digits(17)}`;
    return { user_id: userId, email: `${rng.digits(6)}${userId.slice(-4)}@scs.tiktok-sandbox.test` };
  });
  const count = rng.int(220, 480);
  const factor = localPerUsd(shop.currency);
  const orders: OrderModel[] = [];
  for (let o = 0; o < count; o++) {
    const createTime = anchor - rng.int(60, ORDER_WINDOW_DAYS * DAY);
    const ageSeconds = anchor - createTime;
    const status = statusFor(rng, ageSeconds / DAY);
    const unpaid = status === 'UNPAID' || (status === 'CANCELLED' && rng.chance(0.4));
    const paidTime = unpaid ? undefined : createTime + rng.int(5, Math.min(1800, ageSeconds));
    const settled = status === 'UNPAID' ? 0 : rng.int(60, Math.min(12 * DAY, ageSeconds));
    const items: LineItemModel[] = [];
    const itemCount = rng.weighted([
      [1, 60],
      [2, 25],
      [3, 10],
      [4, 5],
    ] as const);
    for (let i = 0; i < itemCount; i++) {
      const product = rng.pick(sellable.length > 0 ? sellable : products);
      const sku = rng.pick(product.skus);
      items.push({
        id: `57${pad(ordinal, 2)}${rng.digits(9)}${pad(o, 4)}${pad(i, 2)}`,
        product,
        sku,
        originalCents: rng.chance(0.3) ? Math.round(sku.priceCents * rng.range(1.1, 1.4)) : sku.priceCents,
      });
    }
    const subTotal = items.reduce((sum, item) => sum + item.sku.priceCents, 0);
    const shipping = rng.chance(0.55) ? 0 : Math.round(rng.range(2.99, 6.99) * factor * 100);
    // US prices are quoted before sales tax; the other regions include VAT.
    const tax = shop.region === 'US' ? Math.round(subTotal * 0.0725) : 0;
    const buyer = rng.pick(buyers);
    orders.push({
      id: `57${pad(ordinal, 2)}${rng.digits(10)}${pad(o, 5)}`,
      status,
      create_time: createTime,
      update_time: createTime + settled,
      paid_time: paidTime,
      shipping_type: rng.chance(0.7) ? 'TIKTOK' : 'SELLER',
      user_id: buyer.user_id,
      buyer_email: buyer.email,
      items,
      subTotalCents: subTotal,
      shippingCents: shipping,
      taxCents: tax,
      totalCents: subTotal + shipping + tax,
    });
  }
  return orders.sort((a, b) => a.create_time - b.create_time || (a.id < b.id ? -1 : 1));
}

/** Weekly statements over the order window: revenue of the week's paid, uncancelled orders less fees. */
function generateStatements(rng: Prng, ordinal: number, anchor: number, orders: OrderModel[]): StatementModel[] {
  const weeks = Math.ceil(ORDER_WINDOW_DAYS / 7);
  const failedWeek = rng.chance(0.5) ? rng.int(2, weeks - 1) : -1;
  const statements: StatementModel[] = [];
  for (let k = 0; k < weeks; k++) {
    const end = anchor - k * 7 * DAY;
    const start = end - 7 * DAY;
    const counted = orders.filter(
      (order) =>
        order.paid_time !== undefined &&
        order.status !== 'CANCELLED' &&
        order.create_time >= start &&
        order.create_time < end,
    );
    const revenue = counted.reduce((sum, order) => sum + order.totalCents, 0);
    const fee = -Math.round(revenue * 0.08 + counted.length * 30);
    statements.push({
      id: `73${pad(ordinal, 2)}${rng.digits(10)}${pad(k, 5)}`,
      statement_time: end,
      revenueCents: revenue,
      feeCents: fee,
      settlementCents: revenue + fee,
      payment_status: k === 0 ? 'PROCESSING' : k === failedWeek ? 'FAILED' : 'PAID',
    });
  }
  return statements;
}

/** Everything of one shop, from its id alone and the anchor day: the same shop gives the same data. */
export function generateShopData(shop: SandboxShop, anchor: number): ShopData {
  const rng = new Prng(`video-shop:${shop.id}`);
  const ordinal = shopOrdinal(shop.id);
  const products = generateProducts(rng, shop, ordinal, anchor);
  const orders = generateOrders(rng, shop, ordinal, anchor, products);
  const statements = generateStatements(rng, ordinal, anchor, orders);
  return { shop, anchor, products, orders, statements };
}

/**
 * Generated data per shop, built on first read and kept: the anchor is the start of that UTC day, so paging
 * stays consistent for the life of the process however the clock moves afterwards.
 */
export class ShopWorld {
  private readonly cache = new Map<string, ShopData>();

  constructor(private readonly now: () => number) {}

  shop(shop: SandboxShop): ShopData {
    const cached = this.cache.get(shop.id);
    if (cached) return cached;
    const anchor = Math.floor(this.now() / 1000 / DAY) * DAY;
    const data = generateShopData(shop, anchor);
    this.cache.set(shop.id, data);
    return data;
  }
}
