import type { PlatformGrant } from './platform-grant';

/**
 * A grant plug-in as the portal registers it (docs/portal.md, "Grant flows"): one definition per provider, which
 * reads and validates its own environment variables (the same names as provider-proxy's) and builds the provider's
 * grant, or none when the deployment has not configured the provider's app.
 */

/** The environment a plug-in reads: process.env, or a test's object. */
export type GrantEnv = Readonly<Record<string, string | undefined>>;

/**
 * How the portal connects the provider. `authorization_page`: the platform's page, then the portal's callback with a
 * code (a `PlatformGrant`). `key_pair`: no redirect; the portal makes a key pair the customer registers at the
 * platform (the portal's own flow of that provider, e.g. search-ads).
 */
export type GrantConnect = 'authorization_page' | 'key_pair';

interface GrantPluginBase<C extends GrantConnect, G> {
  readonly provider: string;
  readonly connect: C;
  /**
   * The provider's grant from its variables, or undefined when its app is not configured (the portal does not offer
   * it). Throws GrantConfigError naming every bad variable (never its value) when a value is set but invalid.
   */
  fromEnv(env: GrantEnv): G | undefined;
}

export type AuthorizationPageGrantPlugin = GrantPluginBase<'authorization_page', PlatformGrant>;
export type KeyPairGrantPlugin<G extends { readonly provider: string } = { readonly provider: string }> =
  GrantPluginBase<'key_pair', G>;
export type GrantPluginDefinition = AuthorizationPageGrantPlugin | KeyPairGrantPlugin;

/** Bad grant variables, as `NAME: rule` lines; never carries a value (values may be secrets). */
export class GrantConfigError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`invalid grant configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'GrantConfigError';
  }
}

/**
 * Reads a plug-in's variables with the rules the services' zod schemas use (an absent variable takes its default;
 * a present one, even empty, must be valid), collecting every problem; `done()` throws them together. A bad or
 * missing required value reads as '' until then.
 */
export class GrantEnvReader {
  private readonly problems: string[] = [];

  constructor(private readonly env: GrantEnv) {}

  /** An http(s) URL; `fallback` when absent, required when there is none. */
  url(name: string, fallback?: string): string {
    const value = this.env[name];
    if (value === undefined) {
      if (fallback === undefined) this.problems.push(`${name}: is required`);
      return fallback ?? '';
    }
    // As z.url({ protocol: /^https?$/ }): trimmed, `http(s)://` spelled out, parsed by the WHATWG parser.
    const trimmed = value.trim();
    if (!/^https?:\/\//i.test(trimmed) || !URL.canParse(trimmed)) {
      this.problems.push(`${name}: must be an http(s) URL`);
      return '';
    }
    return trimmed.replace(/[\t\n\r]/g, '');
  }

  /** A required non-empty string. */
  text(name: string): string {
    const value = this.optionalText(name);
    if (this.env[name] === undefined) this.problems.push(`${name}: is required`);
    return value ?? '';
  }

  /** A non-empty string, or undefined when absent. */
  optionalText(name: string): string | undefined {
    const value = this.env[name];
    if (value === '') this.problems.push(`${name}: must not be empty`);
    return value === '' ? undefined : value;
  }

  /** A string matching `pattern` (`rule` says what it must be), or undefined when absent. */
  matching(name: string, pattern: RegExp, rule: string): string | undefined {
    const value = this.env[name];
    if (value === undefined) return undefined;
    if (!pattern.test(value)) {
      this.problems.push(`${name}: ${rule}`);
      return undefined;
    }
    return value;
  }

  /** Throws GrantConfigError when any variable read so far was bad. */
  done(): void {
    if (this.problems.length > 0) throw new GrantConfigError(this.problems);
  }
}

/**
 * Builds every plug-in of `plugins` from `env` (the configured ones; the others are left out) and reports the bad
 * variables of all of them at once, each once (the marketplace apps share MARKETPLACE_BASE_URL).
 */
export function grantsFromEnv<P extends GrantPluginDefinition>(
  plugins: readonly P[],
  env: GrantEnv,
): NonNullable<ReturnType<P['fromEnv']>>[] {
  const problems = new Set<string>();
  const grants: NonNullable<ReturnType<P['fromEnv']>>[] = [];
  for (const plugin of plugins) {
    try {
      const grant = plugin.fromEnv(env) as ReturnType<P['fromEnv']>;
      if (grant !== undefined && grant !== null) grants.push(grant);
    } catch (error) {
      if (!(error instanceof GrantConfigError)) throw error;
      for (const problem of error.problems) problems.add(problem);
    }
  }
  if (problems.size > 0) throw new GrantConfigError([...problems]);
  return grants;
}
