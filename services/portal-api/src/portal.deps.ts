import type { KeyLifecycle } from '@gateway/decisions';
import type { PlatformGrant } from '@gateway/platform-grants';
import type { PortalSessionRepository, SignInThrottle, Store } from '@gateway/store';
import type { Request } from 'express';
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
  restBaseUrl: string;
  mcpUrl: string;
  sessionTtlMs: number;
  grantTtlMs: number;
  /** The client address used by the sign-in throttle. */
  clientAddress(req: Request): string;
}
