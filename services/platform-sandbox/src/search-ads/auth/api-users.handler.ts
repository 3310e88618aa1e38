import type { ModuleReply } from '../../platform-modules';
import { findOrg, SEARCH_ADS_ORGS, type SearchAdsOrg } from '../sandbox-orgs';
import type { ApiUserStore } from './api-user.store';
import { apiUserCreatedPage, apiUsersFormPage } from './api-users.page';

/** The page path on the auth host mount. */
export const API_USERS_PATH = '/api-users';

/** GET shows the form; POST (form-encoded: public_key, org_id repeated) creates the API user. */
export function apiUsersPage(store: ApiUserStore, action: string, method: string, body: string): ModuleReply {
  if (method === 'GET') return { kind: 'html', status: 200, html: apiUsersFormPage(action, SEARCH_ADS_ORGS) };
  const form = new URLSearchParams(body);
  const orgIds = form.getAll('org_id').map(Number);
  if (orgIds.length === 0) {
    return {
      kind: 'html',
      status: 400,
      html: apiUsersFormPage(action, SEARCH_ADS_ORGS, 'Choose at least one organization.'),
    };
  }
  const registration = store.register(form.get('public_key') ?? '', orgIds);
  if (!registration.ok) {
    return { kind: 'html', status: 400, html: apiUsersFormPage(action, SEARCH_ADS_ORGS, registration.message) };
  }
  const orgs = registration.user.orgIds.map((orgId) => findOrg(orgId)).filter((org): org is SearchAdsOrg => !!org);
  return { kind: 'html', status: 201, html: apiUserCreatedPage(registration.user, orgs) };
}
