export { PROVIDER_IDS } from './types';
export type {
  ProviderId,
  ParameterType,
  ParameterSpec,
  RequiredWhen,
  PagingSpec,
  BodySpec,
  EnvelopeSpec,
  ApiVersionSpec,
  EndpointSpec,
  ProviderSpec,
} from './types';
export {
  isProviderId,
  providerSpec,
  allProviders,
  endpointsOf,
  findEndpoint,
  isAllowedMethod,
  upstreamPathOf,
  apiVersionOf,
  envelopeOf,
  ownedHeadersOf,
  createCatalogue,
  CATALOGUE,
} from './registry';
export type { Catalogue } from './registry';
export { ownedParamsOf, paramsInputSchema, encodeParams, queryStringOf, validateParams, validateBody } from './params';
export type { ParamValue, WireParams } from './params';
export { MAX_REQUEST_BODY_BYTES } from './request-body';
