import { CONTROL_PREFIX } from '../control/control.handler';
import { PORTAL_PATH } from '../grants/portal.handler';
import { AUTH_PARTNER_PATH } from '../marketplace/auth/authorize.handler';
import { MARKETPLACE_PREFIX } from '../marketplace/marketplace.api';
import { findModule, type PlatformModule } from '../platform-modules';
import { SEARCH_ADS_AUTH_PREFIX } from '../search-ads/search-ads.module';
import { OPEN_API_PREFIX } from '../video-ads/video-ads.api';
import { VIDEO_SHOP_AUTH_PREFIX } from '../video-shop/video-shop.module';
import { FAULT_MODULES, type FaultModule } from './fault.schema';
import type { FaultTarget } from './fault.table';

/**
 * Routes that stay reliable unless a fault's path_prefix names them: tests need the control surface to clear faults
 * and the grant and token endpoints to seed connections while the platform APIs misbehave. (/healthz is answered
 * before faults are looked at, so it never fails.)
 */
const EXEMPT_ROOTS: readonly string[] = [
  CONTROL_PREFIX,
  PORTAL_PATH,
  `${OPEN_API_PREFIX}/oauth2/access_token`,
  VIDEO_SHOP_AUTH_PREFIX,
  `${MARKETPLACE_PREFIX}/api/v2/auth`,
  `${MARKETPLACE_PREFIX}${AUTH_PARTNER_PATH}`,
  SEARCH_ADS_AUTH_PREFIX,
];

const isFaultModule = (name: string | undefined): name is FaultModule =>
  (FAULT_MODULES as readonly (string | undefined)[]).includes(name);

/** Which module answers `path` and whether it is an exempt route, as the fault table matches them. */
export function faultTargetOf(path: string, modules: readonly PlatformModule[]): FaultTarget {
  const exemptRoot = EXEMPT_ROOTS.find((root) => path === root || path.startsWith(`${root}/`));
  const name = path.startsWith('/open_api/') || path === PORTAL_PATH ? 'video-ads' : findModule(modules, path)?.name;
  return { path, module: isFaultModule(name) ? name : undefined, exemptRoot };
}
