import { findBusinessCenter, SANDBOX_BUSINESS_CENTERS } from '../sandbox-accounts';
import type { GrantStore, SandboxApp } from './grant.store';
import { authorizePage, errorPage } from './portal.page';

export const PORTAL_PATH = '/portal/auth';

export type PortalReply = { kind: 'html'; status: number; html: string } | { kind: 'redirect'; location: string };

function failure(message: string): PortalReply {
  return { kind: 'html', status: 400, html: errorPage(message) };
}

function checkRedirect(app: SandboxApp, redirectUri: string): string | undefined {
  let url: URL;
  try {
    url = new URL(redirectUri);
  } catch {
    return 'redirect_uri is missing or is not an absolute URL.';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'redirect_uri must be an http(s) URL.';
  if (app.redirectUris.length > 0 && !app.redirectUris.some((prefix) => redirectUri.startsWith(prefix))) {
    return 'redirect_uri is not registered for this app.';
  }
  return undefined;
}

/**
 * The advertiser authorization page (docs/providers.md "Advertiser OAuth"): GET shows the app and the
 * business centers, POST issues a single-use auth_code and sends the browser back to redirect_uri with
 * auth_code, code (same value, as the platform sends both) and state.
 */
export class PortalApi {
  constructor(private readonly grants: GrantStore) {}

  handle(method: string, form: Map<string, string>): PortalReply {
    const appId = form.get('app_id') ?? '';
    const app = this.grants.findApp(appId);
    if (!app) return failure(`Invalid app_id: ${appId === '' ? '(missing)' : appId}. The app is not registered.`);
    const redirectUri = form.get('redirect_uri') ?? '';
    const redirectProblem = checkRedirect(app, redirectUri);
    if (redirectProblem) return failure(redirectProblem);
    const state = form.get('state') ?? '';

    if (method === 'GET') {
      return {
        kind: 'html',
        status: 200,
        html: authorizePage({
          appName: app.name,
          appId,
          state,
          redirectUri,
          businessCenters: SANDBOX_BUSINESS_CENTERS,
        }),
      };
    }
    const bcId = form.get('bc_id') ?? '';
    if (!findBusinessCenter(bcId)) return failure('Choose one of the business centers.');
    const code = this.grants.issueAuthCode(app.app_id, [bcId]);
    const target = new URL(redirectUri);
    target.searchParams.set('auth_code', code);
    target.searchParams.set('code', code);
    target.searchParams.set('state', state);
    return { kind: 'redirect', location: target.toString() };
  }
}
