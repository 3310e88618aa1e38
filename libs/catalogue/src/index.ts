export { PROVIDER_IDS } from './types';
export type {
  ProviderId,
  ParameterType,
  ParameterSpec,
  RequiredWhen,
  PagingSpec,
  EndpointSpec,
  ProviderSpec,
} from './types';
export { isProviderId, providerSpec, allProviders, endpointsOf, findEndpoint } from './registry';
export { SERVICE_OWNED_PARAMS, paramsInputSchema, encodeParams, validateParams } from './params';
export type { ParamValue } from './params';
