/** Provider ids of spec section 1: the path segment after /v1/. */
export const PROVIDER_IDS = [
  'video-ads',
  'video-shop',
  'marketplace',
  'marketplace-ads',
  'marketplace-affiliate',
  'search-ads',
] as const;

export type ProviderId = (typeof PROVIDER_IDS)[number];

export type ParameterType = 'string' | 'integer' | 'date' | 'enum' | 'json-array' | 'json-object';

/** A parameter required only when another parameter has a given value (spec 4.2: data_level for BASIC). */
export interface RequiredWhen {
  param: string;
  equals: string;
}

export interface ParameterSpec {
  name: string;
  type: ParameterType;
  required: boolean;
  requiredWhen?: RequiredWhen;
  description: string;
  /** Allowed values of an enum, or of the items of a json-array. */
  values?: readonly string[];
  /** Human format, e.g. YYYY-MM-DD. */
  format?: string;
  default?: string | number | readonly string[];
  minimum?: number;
  maximum?: number;
  minItems?: number;
  maxItems?: number;
  example: string | number | readonly string[] | Record<string, unknown>;
}

export interface PagingSpec {
  pageParam: string;
  pageSizeParam: string;
  defaultPageSize: number;
  maxPageSize: number;
  /** Where the page info sits in the platform answer. */
  pageInfoPath: string;
}

export interface EndpointSpec {
  provider: ProviderId;
  /** Path after {base_url}/v1/<provider>, byte-exact: the allowlist matches it without normalisation. */
  path: string;
  method: 'GET';
  /** Path on the platform host. */
  upstreamPath: string;
  title: string;
  summary: string;
  /** Words and phrases a person would use when asking for this data; feeds find_endpoint's ranking. */
  keywords: readonly string[];
  params: readonly ParameterSpec[];
  paging?: PagingSpec;
  /** What the answer contains, for assistants. */
  returns: string;
  /** The platform wants the service's own app_id and secret as query parameters on this path. */
  needsAppCredentials: boolean;
}

export interface ProviderSpec {
  id: ProviderId;
  title: string;
  /** What one connection of this provider is (spec section 1). */
  connectionUnit: string;
  endpoints: readonly EndpointSpec[];
}
