import type { ClientAuthMethod } from '../clients/static-clients';

/**
 * RFC 8414 metadata, also served at the OpenID discovery path for clients that try only that one. The issuer
 * is the URL mcp-server's protected-resource metadata names. No registration_endpoint and no
 * client_id_metadata_document_supported: only the pre-registered clients are accepted (spec 5.3 rule 2).
 */
export function authorizationServerMetadata(input: {
  issuer: string;
  scopes: readonly string[];
  authMethods: readonly ClientAuthMethod[];
}) {
  return {
    issuer: input.issuer,
    authorization_endpoint: `${input.issuer}/authorize`,
    token_endpoint: `${input.issuer}/token`,
    revocation_endpoint: `${input.issuer}/revoke`,
    scopes_supported: [...input.scopes],
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: [...input.authMethods],
    revocation_endpoint_auth_methods_supported: [...input.authMethods],
    authorization_response_iss_parameter_supported: true,
  };
}
