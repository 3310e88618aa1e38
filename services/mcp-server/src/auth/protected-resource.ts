import { getOAuthProtectedResourceMetadataUrl } from '@modelcontextprotocol/sdk/server/auth/router.js';
import type { OAuthProtectedResourceMetadata } from '@modelcontextprotocol/sdk/shared/auth.js';

export interface ProtectedResource {
  /** The MCP URL: resource identifier and token audience. */
  resource: string;
  authorizationServer?: string;
  scopes: readonly string[];
}

/** RFC 9728 metadata of the MCP endpoint: where to sign in and what to ask for (spec 5.3 rule 5). */
export function protectedResourceMetadata(resource: ProtectedResource): OAuthProtectedResourceMetadata {
  return {
    resource: resource.resource,
    ...(resource.authorizationServer ? { authorization_servers: [resource.authorizationServer] } : {}),
    scopes_supported: [...resource.scopes],
    bearer_methods_supported: ['header'],
    resource_name: 'Data gateway MCP endpoint',
  };
}

/** /.well-known/oauth-protected-resource/<path of the MCP URL> (RFC 9728 section 3.1). */
export function metadataUrl(resource: string): string {
  return getOAuthProtectedResourceMetadataUrl(new URL(resource));
}

/**
 * WWW-Authenticate of a 401 (RFC 6750 section 3, RFC 9728 section 5.1). Without credentials it carries no error
 * code, only where to learn how to get a token; with bad ones, error="invalid_token".
 */
export function wwwAuthenticate(resource: ProtectedResource, error?: { description: string }): string {
  const parts = [
    ...(error ? [`error="invalid_token"`, `error_description="${error.description.replace(/["\\]/g, '')}"`] : []),
    `resource_metadata="${metadataUrl(resource.resource)}"`,
    `scope="${resource.scopes.join(' ')}"`,
  ];
  return `Bearer ${parts.join(', ')}`;
}
