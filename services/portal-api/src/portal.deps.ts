import type { KeyLifecycle } from '@gateway/decisions';
import type { PlatformGrant } from '@gateway/platform-grants';
import type { PortalSessionRepository, SignInThrottle, Store } from '@gateway/store';
import type { Request } from 'express';
import type { KeyPairFlow } from './connections/key-pair-flow';
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
  /** The authorization-page grant of each provider the portal can connect that way (connections/grant-plugins.ts). */
  grants: readonly PlatformGrant[];
  /** The providers connected with a key pair of the portal instead (connections/key-pair-flows.ts). */
  keyPairFlows: readonly KeyPairFlow[];
  restBaseUrl: string;
  mcpUrl: string;
  sessionTtlMs: number;
  grantTtlMs: number;
  /** The client address used by the sign-in throttle. */
  clientAddress(req: Request): string;
}
