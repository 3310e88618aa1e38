import type { SandboxBusinessCenter } from '../sandbox-accounts';
import { escapeHtml } from '@gateway/errors';
import { htmlPage } from '../../http/html-page';

const CSS = `
  body { font-family: system-ui, sans-serif; background: #f5f5f7; margin: 0; padding: 2rem; color: #161823; }
  main { max-width: 34rem; margin: 0 auto; background: #fff; border-radius: 12px; padding: 2rem; box-shadow: 0 1px 4px #0002; }
  h1 { font-size: 1.25rem; margin-top: 0; }
  label.bc { display: block; border: 1px solid #ddd; border-radius: 8px; padding: .75rem 1rem; margin: .5rem 0; cursor: pointer; }
  label.bc small { display: block; color: #555; margin: .25rem 0 0 1.6rem; }
  button { background: #fe2c55; color: #fff; border: 0; border-radius: 6px; padding: .7rem 1.6rem; font-size: 1rem; cursor: pointer; }`;

function layout(title: string, body: string): string {
  return htmlPage(title, CSS, body);
}

export interface AuthorizeView {
  appName: string;
  appId: string;
  state: string;
  redirectUri: string;
  businessCenters: readonly SandboxBusinessCenter[];
}

/** The consent page: pick one business center, press Authorize (a plain form POST, so tests need no browser). */
export function authorizePage(view: AuthorizeView): string {
  const options = view.businessCenters
    .map(
      (bc, index) => `<label class="bc"><input type="radio" name="bc_id" value="${escapeHtml(bc.bc_id)}"${
        index === 0 ? ' checked' : ''
      }> <strong>${escapeHtml(bc.name)}</strong> <span class="note">(${escapeHtml(bc.bc_id)})</span>
<small>${bc.advertisers.map((advertiser) => `${escapeHtml(advertiser.name)} (${escapeHtml(advertiser.advertiser_id)})`).join('<br>')}</small></label>`,
    )
    .join('\n');
  return layout(
    'Authorize - TikTok For Business (sandbox)',
    `<h1>${escapeHtml(view.appName)} wants to access your TikTok For Business accounts</h1>
<p class="note">App ID ${escapeHtml(view.appId)}. It will be able to read ad account information, campaigns, ads and reports of the advertisers of the business center you choose.</p>
<form method="post" action="/portal/auth">
<input type="hidden" name="app_id" value="${escapeHtml(view.appId)}">
<input type="hidden" name="state" value="${escapeHtml(view.state)}">
<input type="hidden" name="redirect_uri" value="${escapeHtml(view.redirectUri)}">
${options}
<p><button type="submit" name="action" value="authorize">Authorize</button></p>
</form>
<p class="note">Platform sandbox: no real accounts are involved.</p>`,
  );
}

export function errorPage(message: string): string {
  return layout(
    'Authorization error (sandbox)',
    `<h1 class="error">Authorization failed</h1><p>${escapeHtml(message)}</p>`,
  );
}
