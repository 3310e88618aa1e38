import type { EnvelopeSpec, ParameterSpec, ProviderSpec } from '../types';

// docs/providers.md, marketplace: Open Platform v2. The three apps share the host, envelope and signing; each
// app may call only its own APIs (the platform answers error_api_permission otherwise).

export const MARKETPLACE_ENVELOPE: EnvelopeSpec = {
  codeField: 'error',
  successCode: '',
  tokenErrorCodes: ['error_auth', 'invalid_access_token'],
  errorsUseHttp200: true,
  // shop_id, item_id, campaign_id, merchant_id and affiliate_id are JSON numbers, some above 2^32.
  numericIds: true,
};

/** Set by the service on every call: the app, the time, the connection's token and shop, the signature. */
export const MARKETPLACE_OWNED_PARAMS: readonly string[] = [
  'partner_id',
  'timestamp',
  'access_token',
  'shop_id',
  'sign',
];

export const MARKETPLACE_GRANT =
  "The shop owner authorizes the app on the platform's authorization page (one page per app); the gateway " +
  'exchanges the code for a 4-hour access token and a single-use refresh token, for one shop.';

type SharedProviderFields = Pick<
  ProviderSpec,
  'envelope' | 'upstreamPrefix' | 'ownedParams' | 'ownedHeaders' | 'grant'
>;

export const MARKETPLACE_PROVIDER: SharedProviderFields = {
  envelope: MARKETPLACE_ENVELOPE,
  upstreamPrefix: '',
  ownedParams: MARKETPLACE_OWNED_PARAMS,
  ownedHeaders: [],
  grant: MARKETPLACE_GRANT,
};

export function unixSeconds(name: string, description: string, required = true): ParameterSpec {
  return { name, type: 'integer', required, description, example: 1763596800 };
}
