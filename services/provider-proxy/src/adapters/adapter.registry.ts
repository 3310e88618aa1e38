import { findEndpoint, isAllowedMethod, isProviderId, type EndpointSpec } from '@gateway/catalogue';
import { failure, type ProxyFailure } from '../proxy/proxy-failure';
import type { ProviderAdapter } from './provider-adapter';

export type Resolution =
  { ok: true; adapter: ProviderAdapter; endpoint: EndpointSpec } | { ok: false; failure: ProxyFailure };

/**
 * The provider adapters by provider id, and the proxy's own allowlist check. Read-only is enforced here,
 * not by configuration (spec section 1): a path that is not in the catalogue, every write path included,
 * is refused before any credential is loaded, so it can never reach a platform.
 */
export class AdapterRegistry {
  private readonly adapters: ReadonlyMap<string, ProviderAdapter>;

  constructor(adapters: readonly ProviderAdapter[]) {
    this.adapters = new Map(adapters.map((adapter) => [adapter.provider, adapter]));
  }

  get providers(): string[] {
    return [...this.adapters.keys()];
  }

  resolve(provider: string, method: string, path: string): Resolution {
    if (!isProviderId(provider)) {
      return { ok: false, failure: failure('path_not_allowed', 'the provider is not one of the gateway providers') };
    }
    // spec 4.2: the raw path, byte-exact; findEndpoint never normalises.
    const endpoint = findEndpoint(provider, path);
    if (endpoint === undefined) {
      return { ok: false, failure: failure('path_not_allowed', `the path is not on the ${provider} allowlist`) };
    }
    if (!isAllowedMethod(endpoint, method)) {
      return { ok: false, failure: failure('path_not_allowed', `${method} is not a read of this path`) };
    }
    const adapter = this.adapters.get(provider);
    if (adapter === undefined) {
      return { ok: false, failure: failure('path_not_allowed', `${provider} has no platform adapter yet`) };
    }
    return { ok: true, adapter, endpoint };
  }
}
