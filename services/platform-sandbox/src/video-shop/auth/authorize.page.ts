import type { SandboxSeller } from '../sandbox-sellers';
import { escapeHtml } from '@gateway/errors';
import { htmlPage } from '../../http/html-page';

const CSS = `
  body { font-family: system-ui, sans-serif; background: #f5f5f7; margin: 0; padding: 2rem; color: #161823; }
  main { max-width: 34rem; margin: 0 auto; background: #fff; border-radius: 12px; padding: 2rem; box-shadow: 0 1px 4px #0002; }
  h1 { font-size: 1.25rem; margin-top: 0; }
  label.seller { display: block; border: 1px solid #ddd; border-radius: 8px; padding: .75rem 1rem; margin: .5rem 0; cursor: pointer; }
  label.seller small { display: block; color: #555; margin: .25rem 0 0 1.6rem; }
  button { border: 0; border-radius: 6px; padding: .7rem 1.6rem; font-size: 1rem; cursor: pointer; margin-right: .5rem; }
  button.approve { background: #fe2c55; color: #fff; }
  button.deny { background: #e3e3e6; color: #161823; }`;

function layout(title: string, body: string): string {
  return htmlPage(title, CSS, body);
}

export interface ShopAuthorizeView {
  action: string;
  appName: string;
  appKey: string;
  state: string;
  /** Empty when the app's registered address is used. */
  redirectUri: string;
  sellers: readonly SandboxSeller[];
}

/** The seller's consent page: pick a seller account, then Authorize or Deny (a plain form POST). */
export function shopAuthorizePage(view: ShopAuthorizeView): string {
  const sellers = view.sellers
    .map(
      (
        seller,
        index,
      ) => `<label class="seller"><input type="radio" name="open_id" value="${escapeHtml(seller.open_id)}"${
        index === 0 ? ' checked' : ''
      }> <strong>${escapeHtml(seller.name)}</strong> <span class="note">(${escapeHtml(seller.base_region)})</span>
<small>${seller.shops.map((shop) => `${escapeHtml(shop.name)} - ${escapeHtml(shop.region)}, ${escapeHtml(shop.seller_type)}`).join('<br>')}</small></label>`,
    )
    .join('\n');
  const redirect =
    view.redirectUri === ''
      ? ''
      : `<input type="hidden" name="redirect_uri" value="${escapeHtml(view.redirectUri)}">\n`;
  return layout(
    'Authorize - TikTok Shop Seller Center (sandbox)',
    `<h1>${escapeHtml(view.appName)} wants to access your TikTok Shop</h1>
<p class="note">App key ${escapeHtml(view.appKey)}. It will be able to read your shops, orders, products, finance statements and shop analytics.</p>
<form method="post" action="${escapeHtml(view.action)}">
<input type="hidden" name="app_key" value="${escapeHtml(view.appKey)}">
<input type="hidden" name="state" value="${escapeHtml(view.state)}">
${redirect}${sellers}
<p><button class="approve" type="submit" name="action" value="authorize">Authorize</button><button class="deny" type="submit" name="action" value="deny">Deny</button></p>
</form>
<p class="note">Platform sandbox: no real shops are involved.</p>`,
  );
}

export function shopErrorPage(message: string): string {
  return layout(
    'Authorization error (sandbox)',
    `<h1 class="error">Authorization failed</h1><p>${escapeHtml(message)}</p>`,
  );
}
