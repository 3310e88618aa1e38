import type { ApiUser } from './api-user.store';
import type { SearchAdsOrg } from '../sandbox-orgs';
import { escapeHtml } from '@gateway/errors';
import { htmlPage } from '../../http/html-page';

const CSS = `
  body { font-family: -apple-system, system-ui, sans-serif; background: #f5f5f7; margin: 0; padding: 2rem; color: #1d1d1f; }
  main { max-width: 40rem; margin: 0 auto; background: #fff; border-radius: 12px; padding: 2rem; box-shadow: 0 1px 4px #0002; }
  h1 { font-size: 1.3rem; margin-top: 0; }
  textarea { width: 100%; min-height: 9rem; font-family: ui-monospace, monospace; font-size: .8rem; }
  label.org { display: block; margin: .4rem 0; }
  button { border: 0; border-radius: 8px; padding: .7rem 1.6rem; font-size: 1rem; background: #0071e3; color: #fff; cursor: pointer; }
  dl { display: grid; grid-template-columns: max-content 1fr; gap: .5rem 1rem; }
  dd { margin: 0; font-family: ui-monospace, monospace; word-break: break-all; }`;

function layout(title: string, body: string): string {
  return htmlPage(title, CSS, body);
}

/** Account Settings > API: paste the public key, choose the orgs, create the API user. */
export function apiUsersFormPage(action: string, orgs: readonly SearchAdsOrg[], error?: string): string {
  const choices = orgs
    .map(
      (org) =>
        `<label class="org"><input type="checkbox" name="org_id" value="${org.orgId}" checked> ${escapeHtml(org.orgName)} <span class="note">(orgId ${org.orgId}, ${org.currency})</span></label>`,
    )
    .join('\n');
  return layout(
    'API - Apple Ads (sandbox)',
    `<h1>Create an API user</h1>
${error === undefined ? '' : `<p class="error" id="error">${escapeHtml(error)}</p>`}
<form method="post" action="${escapeHtml(action)}">
<p><label for="public_key">Public key (PEM, EC P-256)</label></p>
<textarea id="public_key" name="public_key" placeholder="-----BEGIN PUBLIC KEY-----"></textarea>
<p>Organizations this API user may access:</p>
${choices}
<p><button type="submit">Save</button></p>
</form>
<p class="note">Platform sandbox: no real Apple Ads accounts are involved.</p>`,
  );
}

/** What the platform shows after the key upload: the values the client needs to build its client secret. */
export function apiUserCreatedPage(user: ApiUser, orgs: readonly SearchAdsOrg[]): string {
  return layout(
    'API user created - Apple Ads (sandbox)',
    `<h1>API user created</h1>
<dl>
<dt>clientId</dt><dd id="client-id">${escapeHtml(user.clientId)}</dd>
<dt>teamId</dt><dd id="team-id">${escapeHtml(user.teamId)}</dd>
<dt>keyId</dt><dd id="key-id">${escapeHtml(user.keyId)}</dd>
<dt>Organizations</dt><dd id="org-ids">${orgs.map((org) => `${org.orgId} ${escapeHtml(org.orgName)}`).join('<br>')}</dd>
</dl>`,
  );
}
