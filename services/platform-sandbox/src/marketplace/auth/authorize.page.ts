import type { MarketShop } from '../sandbox-shops';
import { escapeHtml } from '@gateway/errors';
import { htmlPage } from '../../http/html-page';

const CSS = `
  body { font-family: system-ui, sans-serif; background: #f6f6f6; margin: 0; padding: 2rem; color: #222; }
  main { max-width: 34rem; margin: 0 auto; background: #fff; border-radius: 8px; padding: 2rem; box-shadow: 0 1px 4px #0002; }
  h1 { font-size: 1.25rem; margin-top: 0; }
  label.shop { display: block; border: 1px solid #ddd; border-radius: 6px; padding: .75rem 1rem; margin: .5rem 0; cursor: pointer; }
  button { border: 0; border-radius: 4px; padding: .7rem 1.6rem; font-size: 1rem; cursor: pointer; margin-right: .5rem; }
  button.approve { background: #ee4d2d; color: #fff; }
  button.deny { background: #e8e8e8; color: #222; }`;

function layout(title: string, body: string): string {
  return htmlPage(title, CSS, body);
}

export interface MarketAuthorizeView {
  action: string;
  appName: string;
  partnerId: number;
  /** Single-use ticket that carries the verified partner and redirect to the form POST. */
  ticket: string;
  shops: readonly MarketShop[];
}

/** The seller's consent page: pick a shop, then Confirm Authorization or Cancel (a plain form POST). */
export function marketAuthorizePage(view: MarketAuthorizeView): string {
  const shops = view.shops
    .map(
      (shop, index) =>
        `<label class="shop"><input type="radio" name="shop_id" value="${shop.shop_id}"${index === 0 ? ' checked' : ''}> <strong>${escapeHtml(shop.shop_name)}</strong> <span class="note">(${shop.region}${shop.is_cb ? ', cross-border' : ''}, shop_id ${shop.shop_id})</span></label>`,
    )
    .join('\n');
  return layout(
    'Authorize - Shopee Open Platform (sandbox)',
    `<h1>${escapeHtml(view.appName)} wants access to your shop</h1>
<p class="note">Partner ID ${view.partnerId}.</p>
<form method="post" action="${escapeHtml(view.action)}">
<input type="hidden" name="ticket" value="${escapeHtml(view.ticket)}">
${shops}
<p><button class="approve" type="submit" name="action" value="authorize">Confirm Authorization</button><button class="deny" type="submit" name="action" value="deny">Cancel</button></p>
</form>
<p class="note">Platform sandbox: no real shops are involved.</p>`,
  );
}

export function marketErrorPage(error: string, message: string): string {
  return layout(
    'Authorization error (sandbox)',
    `<h1 class="error">Authorization failed</h1><p><code>${escapeHtml(error)}</code> ${escapeHtml(message)}</p>`,
  );
}
