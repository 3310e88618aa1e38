import { shopOf, type ShopCallContext } from '../call-context';
import { money, PAYMENT_STATUSES } from '../data/shop-data.generator';
import { pageOf } from '../data/page-token';
import { ok, type ShopResult } from '../envelope';
import { invalidPageToken } from './orders.handler';

/** GET /finance/202309/statements: weekly settlement statements of the shop; sort_field is required. */
export function statements(ctx: ShopCallContext): ShopResult {
  const { params } = ctx;
  const sortField = params.string('sort_field');
  if (sortField === undefined) params.fail('sort_field is required.');
  else if (sortField !== 'statement_time') params.fail('sort_field must be statement_time.');
  const sortOrder = params.enumOf('sort_order', ['ASC', 'DESC'] as const, 'ASC');
  const pageSize = params.pageSize(false);
  const pageToken = params.string('page_token');
  const filter = {
    statement_time_ge: params.seconds('statement_time_ge'),
    statement_time_lt: params.seconds('statement_time_lt'),
    payment_status: params.enumOf('payment_status', PAYMENT_STATUSES),
  };
  if (params.error) return params.error;

  const shop = shopOf(ctx);
  const matching = ctx.services.world
    .shop(shop)
    .statements.filter(
      (statement) =>
        (filter.statement_time_ge === undefined || statement.statement_time >= filter.statement_time_ge) &&
        (filter.statement_time_lt === undefined || statement.statement_time < filter.statement_time_lt) &&
        (filter.payment_status === undefined || statement.payment_status === filter.payment_status),
    )
    .sort((a, b) => (sortOrder === 'ASC' ? 1 : -1) * (a.statement_time - b.statement_time));

  const page = pageOf(matching, pageSize, pageToken, JSON.stringify(['statements', shop.id, sortOrder, filter]));
  if (!page) return invalidPageToken(ctx);
  return ok({
    statements: page.items.map((statement) => ({
      id: statement.id,
      statement_time: statement.statement_time,
      settlement_amount: money(statement.settlementCents),
      currency: shop.currency,
      revenue_amount: money(statement.revenueCents),
      fee_amount: money(statement.feeCents),
      payment_status: statement.payment_status,
    })),
    next_page_token: page.nextPageToken,
  });
}
