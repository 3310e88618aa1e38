import type { GrantEnv } from '@gateway/platform-grants';
import type { CredentialCipher, ProviderId, Store } from '@gateway/store';
import type { ApiRoute } from '../http/api-route';
import type { PortalDeps } from '../portal.deps';

/**
 * A provider the portal connects with a key pair it makes instead of a platform's authorization page (docs/portal.md,
 * "Grant flows"; its grant plug-in is `connect: 'key_pair'`). Each such provider is one folder under connections/
 * with its own routes, under `/api/connections/<provider>/`, and its page `/connections/<provider>` in the web app;
 * it is registered in key-pair-flows.ts. The generic routes know only this contract.
 */
export interface KeyPairFlowPlugin {
  readonly provider: ProviderId;
  /**
   * Reads and validates the flow's variables (its grant plug-in's and the portal's own), or undefined when the
   * deployment does not offer it. Throws GrantConfigError naming the bad variables (never their values).
   */
  fromEnv(env: GrantEnv): KeyPairFlowSetup | undefined;
}

/** A configured flow, opened once the store is (its pending keys live in the database). */
export interface KeyPairFlowSetup {
  readonly provider: ProviderId;
  open(resources: { connection: Store['connection']; cipher: CredentialCipher }): Promise<KeyPairFlow>;
}

export interface KeyPairFlow {
  readonly provider: ProviderId;
  /** The flow's first step, which the generic grant route names when asked for an authorization page. */
  readonly startPath: string;
  /** false: the database has no TTL index (FerretDB), so the portal's timer calls purgeExpired. */
  readonly ttlIndex: boolean;
  purgeExpired(): Promise<unknown>;
  /** The flow's operations (documented in /api/openapi.json like every route). */
  routes(deps: PortalDeps): ApiRoute[];
}

/** The web app's page of a key-pair flow (public/app.js finds it by the provider's `connect: 'key_pair'`). */
export function keyPairPagePath(provider: ProviderId): string {
  return `/connections/${provider}`;
}
