import { shopOf, type ShopCallContext } from '../call-context';
import { money, PRODUCT_STATUSES, type ProductModel } from '../data/shop-data.generator';
import { decodePageToken, pageOf } from '../data/page-token';
import { ok, shopError, ShopCode, type ShopResult } from '../envelope';
import { invalidPageToken } from './orders.handler';

const SEARCH_STATUSES = ['ALL', ...PRODUCT_STATUSES] as const;
/** The platform serves at most this many results of one product search through paging. */
const SEARCH_WINDOW = 10_000;

function productRecord(product: ProductModel, currency: string): object {
  return {
    id: product.id,
    title: product.title,
    status: product.status,
    skus: product.skus.map((sku) => ({
      id: sku.id,
      seller_sku: sku.seller_sku,
      price: { currency, sale_price: money(sku.priceCents) },
      inventory: sku.inventory.map((stock) => ({ warehouse_id: stock.warehouse_id, quantity: stock.quantity })),
    })),
    create_time: product.create_time,
    update_time: product.update_time,
  };
}

/** POST /product/202309/products/search and /product/202502/products/search (same contract here). */
export function searchProducts(ctx: ShopCallContext): ShopResult {
  const { params } = ctx;
  const pageSize = params.pageSize(true);
  const pageToken = params.string('page_token');
  const filter = {
    status: params.bodyEnum('status', SEARCH_STATUSES) ?? 'ALL',
    seller_skus: params.bodyStringArray('seller_skus', 100),
    create_time_ge: params.bodySeconds('create_time_ge'),
    create_time_le: params.bodySeconds('create_time_le'),
    update_time_ge: params.bodySeconds('update_time_ge'),
    update_time_le: params.bodySeconds('update_time_le'),
  };
  if (params.error) return params.error;

  const shop = shopOf(ctx);
  const skus = filter.seller_skus ? new Set(filter.seller_skus) : undefined;
  const matching = ctx.services.world
    .shop(shop)
    .products.filter(
      (product) =>
        (filter.status === 'ALL' || product.status === filter.status) &&
        (skus === undefined || product.skus.some((sku) => skus.has(sku.seller_sku))) &&
        (filter.create_time_ge === undefined || product.create_time >= filter.create_time_ge) &&
        (filter.create_time_le === undefined || product.create_time <= filter.create_time_le) &&
        (filter.update_time_ge === undefined || product.update_time >= filter.update_time_ge) &&
        (filter.update_time_le === undefined || product.update_time <= filter.update_time_le),
    )
    .sort((a, b) => b.create_time - a.create_time || (a.id < b.id ? 1 : -1));

  const fingerprint = JSON.stringify(['products', shop.id, filter]);
  const offset = pageToken === undefined ? 0 : decodePageToken(pageToken, fingerprint);
  if (offset !== undefined && offset + pageSize > SEARCH_WINDOW) {
    return shopError(
      ShopCode.SEARCH_WINDOW_EXCEEDED,
      'The search can page through at most 10,000 results; narrow the filters.',
      400,
    );
  }
  const page = pageOf(matching, pageSize, pageToken, fingerprint);
  if (!page) return invalidPageToken(ctx);
  return ok({
    products: page.items.map((product) => productRecord(product, shop.currency)),
    next_page_token: page.nextPageToken,
    total_count: matching.length,
  });
}
