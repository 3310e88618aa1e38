import type { KeyLifecycle } from '@gateway/decisions';
import type { PlatformGrant, SearchAdsGrant } from '@gateway/platform-grants';
import type { PortalSessionRepository, SignInThrottle, Store } from '@gateway/store';
import type { Request } from 'express';
import type { SearchAdsKeyStore } from './connections/search-ads-key.store';
import type { CookieSettings } from './http/cookies';

/** Everything the portal's handlers use, passed in so tests can build the server on other pieces. */
export interface PortalDeps {
  store: Store;
  sessions: PortalSessionRepository;
  lifecycle: KeyLifecycle;
  throttle: SignInThrottle;
  cookies: CookieSettings;
  /** The portal's public origin (no trailing slash); known only after listening when PUBLIC_URL is unset. */
  publicOrigin(): string;
  /** The grant flow of each provider the portal can connect (connections/grant-plugins.ts). */
  grants: readonly PlatformGrant[];
  /** search-ads: a key-pair flow instead of a redirect (connections/search-ads.routes.ts); absent: not offered. */
  searchAds?: SearchAdsPortal;
  restBaseUrl: string;
  mcpUrl: string;
  sessionTtlMs: number;
  grantTtlMs: number;
  /** The client address used by the sign-in throttle. */
  clientAddress(req: Request): string;
}

/** What the search-ads connect flow needs: the platform calls, the sealed pending keys, the API-user page. */
export interface SearchAdsPortal {
  grant: SearchAdsGrant;
  keys: SearchAdsKeyStore;
  /** Life of a pending key pair. */
  keyTtlMs: number;
  /** The platform's page where the customer registers the public key as an API user. */
  apiUsersUrl: string;
}
