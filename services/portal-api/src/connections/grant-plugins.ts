import {
  GRANT_PLUGINS,
  grantsFromEnv,
  type AuthorizationPageGrantPlugin,
  type GrantEnv,
  type PlatformGrant,
} from '@gateway/platform-grants';

/**
 * The providers the portal connects through the platform's authorization page, each with its grant flow
 * (docs/portal.md, "Grant flows"): every plug-in of @gateway/platform-grants' one list whose app is configured (each
 * reads its own variables, the same names as provider-proxy's). Throws GrantConfigError on a bad variable. The
 * key-pair providers are connections/key-pair-flows.ts's.
 */
export function grantPlugins(env: GrantEnv): PlatformGrant[] {
  const redirects = GRANT_PLUGINS.filter(
    (plugin): plugin is AuthorizationPageGrantPlugin => plugin.connect === 'authorization_page',
  );
  return grantsFromEnv(redirects, env);
}
