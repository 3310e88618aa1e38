import { html, type SafeHtml } from '../http/html';
import type { GrantedConnection } from '../grant/oauth-key.service';

export const PAGE_CSS = `
body{font-family:system-ui,sans-serif;background:#f5f6f8;color:#1d2330;margin:0}
main{max-width:28rem;margin:4rem auto;background:#fff;border-radius:8px;padding:2rem;box-shadow:0 1px 4px #0002}
h1{font-size:1.3rem;margin-top:0}label{display:block;margin:.8rem 0 .2rem}
input[type=email],input[type=password]{width:100%;box-sizing:border-box;padding:.5rem;font-size:1rem}
button{padding:.55rem 1.1rem;font-size:1rem;margin:1rem .5rem 0 0;cursor:pointer}
.error{background:#fde8e8;color:#8a1c1c;padding:.6rem;border-radius:4px}
.muted{color:#5b6475;font-size:.9rem}ul{padding-left:1.2rem}
`;

function layout(title: string, body: SafeHtml): string {
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>${title}</title>
        <link rel="stylesheet" href="/assets/oauth.css" />
      </head>
      <body>
        <main>${body}</main>
      </body>
    </html>`.value;
}

/** When the client or its redirect URI cannot be trusted, the user sees this and is sent nowhere. */
export function errorPage(description: string): string {
  return layout(
    'Sign-in error',
    html`<h1>This sign-in link is not valid</h1>
      <p class="error">${description}</p>
      <p class="muted">Start the connection again from your assistant.</p>`,
  );
}

export function signInPage(input: {
  clientName: string;
  request: string;
  csrf: string;
  email?: string;
  error?: string;
}): string {
  return layout(
    `Sign in to connect ${input.clientName}`,
    html`<h1>Sign in to connect ${input.clientName}</h1>
      <p class="muted">Use your data gateway portal account.</p>
      ${input.error ? html`<p class="error" role="alert">${input.error}</p>` : ''}
      <form method="post" action="/authorize/sign-in">
        <input type="hidden" name="request" value="${input.request}" />
        <input type="hidden" name="csrf_token" value="${input.csrf}" />
        <label for="email">Email</label>
        <input id="email" name="email" type="email" autocomplete="username" required value="${input.email ?? ''}" />
        <label for="password">Password</label>
        <input id="password" name="password" type="password" autocomplete="current-password" required />
        <button type="submit">Sign in</button>
      </form>`,
  );
}

export function consentPage(input: {
  clientName: string;
  keyName: string;
  email: string;
  providers: readonly string[];
  connections: readonly GrantedConnection[];
  request: string;
  csrf: string;
}): string {
  const connections =
    input.connections.length === 0
      ? html`<li>none yet: connections you add later can be given to the key in the portal</li>`
      : input.connections.map((connection) => html`<li>${connection.provider}: ${connection.account_id}</li>`);
  return layout(
    `Allow ${input.clientName}`,
    html`<h1>Allow ${input.clientName} to read your data?</h1>
      <p>Signed in as <strong>${input.email}</strong>.</p>
      <p>${input.clientName} will be able to, through the gateway's MCP tools:</p>
      <ul>
        <li>list and describe the read-only endpoints of: ${input.providers.join(', ') || 'no provider'}</li>
        <li>
          read raw platform data of these connections, each call counted against your plan's monthly quota:
          <ul>
            ${connections}
          </ul>
        </li>
      </ul>
      <p>It cannot change, create or delete anything on any platform.</p>
      <p class="muted">
        A key named <strong>${input.keyName}</strong> appears in your portal. It is this permission: revoke it there to
        end ${input.clientName}'s access at any time.
      </p>
      <form method="post" action="/authorize/consent">
        <input type="hidden" name="request" value="${input.request}" />
        <input type="hidden" name="csrf_token" value="${input.csrf}" />
        <button type="submit" name="decision" value="allow">Allow</button>
        <button type="submit" name="decision" value="deny">Deny</button>
      </form>
      <form method="post" action="/authorize/sign-out">
        <input type="hidden" name="request" value="${input.request}" />
        <input type="hidden" name="csrf_token" value="${input.csrf}" />
        <p class="muted">Not ${input.email}? <button type="submit">Use another account</button></p>
      </form>`,
  );
}
