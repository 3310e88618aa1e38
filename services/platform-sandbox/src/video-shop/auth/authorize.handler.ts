import type { ModuleReply } from '../../platform-modules';
import { findSeller, SANDBOX_SELLERS } from '../sandbox-sellers';
import { shopAuthorizePage, shopErrorPage } from './authorize.page';
import type { ShopApp, ShopGrantStore } from './shop-grant.store';

function failure(message: string): ModuleReply {
  return { kind: 'html', status: 400, html: shopErrorPage(message) };
}

/**
 * Where the browser goes back to. The platform takes it from the app registration; the sandbox also accepts a
 * redirect_uri parameter, allowed when it starts with a registered prefix (any http(s) URL when none is set).
 */
function resolveRedirect(app: ShopApp, requested: string): { uri: string } | { problem: string } {
  const candidate = requested !== '' ? requested : (app.redirectUris[0] ?? '');
  if (candidate === '') return { problem: 'redirect_uri is missing and the app has no registered redirect address.' };
  let url: URL;
  try {
    url = new URL(candidate);
  } catch {
    return { problem: 'redirect_uri is not an absolute URL.' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { problem: 'redirect_uri must be an http(s) URL.' };
  if (app.redirectUris.length > 0 && !app.redirectUris.some((prefix) => candidate.startsWith(prefix))) {
    return { problem: 'redirect_uri is not registered for this app.' };
  }
  return { uri: candidate };
}

/**
 * The seller authorization page: GET shows the sandbox sellers, POST with action=authorize issues a
 * single-use code and redirects with code and state; action=deny redirects with error=access_denied.
 */
export class ShopAuthorizeFlow {
  constructor(
    private readonly store: ShopGrantStore,
    /** Full sandbox path of the page, the form's target. */
    private readonly formAction: string,
  ) {}

  handle(method: string, form: ReadonlyMap<string, string>): ModuleReply {
    const app = this.store.app;
    const appKey = form.get('app_key') ?? '';
    if (appKey !== app.app_key) {
      return failure(`Invalid app_key: ${appKey === '' ? '(missing)' : appKey}. The app is not registered.`);
    }
    const requested = form.get('redirect_uri') ?? '';
    const redirect = resolveRedirect(app, requested);
    if ('problem' in redirect) return failure(redirect.problem);
    const state = form.get('state') ?? '';

    if (method === 'GET') {
      return {
        kind: 'html',
        status: 200,
        html: shopAuthorizePage({
          action: this.formAction,
          appName: app.name,
          appKey,
          state,
          redirectUri: requested,
          sellers: SANDBOX_SELLERS,
        }),
      };
    }
    const target = new URL(redirect.uri);
    const action = form.get('action') ?? '';
    if (action === 'deny') {
      target.searchParams.set('error', 'access_denied');
      target.searchParams.set('state', state);
      return { kind: 'redirect', location: target.toString() };
    }
    if (action !== 'authorize') return failure('Press Authorize or Deny.');
    const seller = findSeller(form.get('open_id') ?? '');
    if (!seller) return failure('Choose one of the seller accounts.');
    target.searchParams.set('code', this.store.issueAuthCode(seller.open_id));
    target.searchParams.set('state', state);
    return { kind: 'redirect', location: target.toString() };
  }
}
