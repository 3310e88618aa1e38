import { randomBytes } from 'node:crypto';
import type { ModuleReply } from '../../platform-modules';
import type { MarketplaceApi } from '../marketplace.api';
import { parseQuery } from '../marketplace.api';
import { findMarketShop, MARKET_SHOPS } from '../sandbox-shops';
import { marketAuthorizePage, marketErrorPage } from './authorize.page';
import type { MarketGrantStore } from './market-grant.store';

/** The platform path of the page, which is also the path its public sign covers. */
export const AUTH_PARTNER_PATH = '/api/v2/shop/auth_partner';

interface Ticket {
  partner_id: number;
  redirect: string;
  expires_at: number;
}

function failure(error: string, message: string): ModuleReply {
  return { kind: 'html', status: 400, html: marketErrorPage(error, message) };
}

/** Any http(s) address, unless prefixes are configured. */
function checkRedirect(redirect: string, prefixes: readonly string[]): string | undefined {
  if (redirect === '') return 'redirect is required.';
  let url: URL;
  try {
    url = new URL(redirect);
  } catch {
    return 'redirect is not an absolute URL.';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'redirect must be an http(s) URL.';
  if (prefixes.length > 0 && !prefixes.some((prefix) => redirect.startsWith(prefix))) {
    return 'redirect is not allowed for this app.';
  }
  return undefined;
}

/**
 * The shop authorization page of each app. GET verifies the public sign and shows the shops; the form POST
 * carries a single-use ticket (the sign may be older than 5 minutes by the time the seller clicks), then 302
 * to `redirect` with code and shop_id, or without a code when the seller cancels.
 */
export class MarketAuthorizeFlow {
  private readonly tickets = new Map<string, Ticket>();

  constructor(
    private readonly api: MarketplaceApi,
    private readonly store: MarketGrantStore,
    private readonly options: { formAction: string; redirectPrefixes: readonly string[]; ticketMs: number },
    private readonly now: () => number,
  ) {}

  handle(method: string, query: string, form: string): ModuleReply {
    return method === 'GET' ? this.show(query) : this.submit(new URLSearchParams(form));
  }

  private show(rawQuery: string): ModuleReply {
    const query = parseQuery(rawQuery);
    const authenticated = this.api.authenticatePublic(query, AUTH_PARTNER_PATH);
    if ('kind' in authenticated) {
      return authenticated.kind === 'error'
        ? failure(authenticated.error, authenticated.message)
        : failure('error_server', 'unexpected answer');
    }
    const redirect = query.get('redirect')?.[0] ?? '';
    const problem = checkRedirect(redirect, this.options.redirectPrefixes);
    if (problem) return failure('error_param', problem);
    const now = this.now();
    for (const [id, ticket] of this.tickets) if (ticket.expires_at <= now) this.tickets.delete(id);
    const ticket = randomBytes(16).toString('hex');
    this.tickets.set(ticket, {
      partner_id: authenticated.app.partner_id,
      redirect,
      expires_at: now + this.options.ticketMs,
    });
    return {
      kind: 'html',
      status: 200,
      html: marketAuthorizePage({
        action: this.options.formAction,
        appName: authenticated.app.name,
        partnerId: authenticated.app.partner_id,
        ticket,
        shops: MARKET_SHOPS,
      }),
    };
  }

  private submit(form: URLSearchParams): ModuleReply {
    const id = form.get('ticket') ?? '';
    const ticket = this.tickets.get(id);
    if (!ticket || ticket.expires_at <= this.now()) {
      return failure('error_param', 'The authorization page has expired; open it again.');
    }
    const action = form.get('action') ?? '';
    if (action !== 'authorize' && action !== 'deny') return failure('error_param', 'Press Confirm or Cancel.');
    this.tickets.delete(id);
    const target = new URL(ticket.redirect);
    if (action === 'deny') return { kind: 'redirect', location: target.toString() };
    const shopText = form.get('shop_id') ?? '';
    const shop = /^\d{1,16}$/.test(shopText) ? findMarketShop(Number(shopText)) : undefined;
    if (!shop) return failure('error_param', 'Choose one of the shops.');
    target.searchParams.set('code', this.store.issueAuthCode(ticket.partner_id, shop.shop_id));
    target.searchParams.set('shop_id', String(shop.shop_id));
    return { kind: 'redirect', location: target.toString() };
  }
}
