import type { z } from 'zod';

/** Provider ids (docs/product.md section 1): the path segment after /v1/. */
export const PROVIDER_IDS = [
  'video-ads',
  'video-shop',
  'marketplace',
  'marketplace-ads',
  'marketplace-affiliate',
  'search-ads',
] as const;

export type ProviderId = (typeof PROVIDER_IDS)[number];

/**
 * How a parameter travels: `csv` is a list comma-joined in one parameter, `repeated` a list sent as the parameter
 * once per value (item_status=NORMAL&item_status=BANNED), as the platform documents it.
 */
export type ParameterType = 'string' | 'integer' | 'date' | 'enum' | 'json-array' | 'json-object' | 'csv' | 'repeated';

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
  /** Allowed values of an enum, or of the items of a json-array or a repeated parameter. */
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

/** How a platform pages a list: by page number, by an opaque cursor, or by offset. */
export type PagingSpec =
  | {
      style: 'page';
      pageParam: string;
      pageSizeParam: string;
      defaultPageSize: number;
      maxPageSize: number;
      /** Where the page info sits in the platform answer, e.g. data.page_info. */
      pageInfoPath: string;
    }
  | {
      style: 'cursor';
      /** Query parameter that takes the token of the next page. */
      cursorParam: string;
      pageSizeParam: string;
      defaultPageSize: number;
      maxPageSize: number;
      /** Where the next page's token sits in the answer; empty or absent on the last page. */
      nextCursorPath: string;
    }
  | {
      /** Page numbers without a page count: read on while the answer says more records follow. */
      style: 'page_no';
      pageParam: string;
      pageSizeParam: string;
      defaultPageSize: number;
      maxPageSize: number;
      moreFlagPath: string;
    }
  | {
      style: 'offset';
      offsetParam: string;
      limitParam: string;
      defaultPageSize: number;
      maxPageSize: number;
      /** Where the answer says whether more records follow (or their total). */
      moreFlagPath: string;
    };

/**
 * The JSON body of a read the platform defines as POST (a search or a report query), or that it also accepts
 * on GET. Bodies of other endpoints are refused.
 */
export interface BodySpec {
  required: boolean;
  description: string;
  /** Validates the parsed body; absent: any JSON object. */
  schema?: z.ZodType<Record<string, unknown>>;
  example: Record<string, unknown>;
}

/** How the platform's answers are read: success, error code, token errors and where records sit. */
export interface EnvelopeSpec {
  /** Field holding the platform's error code; its success value. */
  codeField: string;
  /** null: the field is null on success (an error object otherwise). */
  successCode: number | string | null;
  /** Platform error codes that mean the connection's token is expired, invalid or revoked. */
  tokenErrorCodes: readonly (number | string)[];
  /** Errors come with HTTP 200 (true) or with a real HTTP status (false). */
  errorsUseHttp200: boolean;
  /** Ids are strings (safe) or JSON numbers that may pass 2^53 (parse with care). */
  numericIds: boolean;
  /**
   * When successCode is null: the field of the error object that holds its code (e.g. code). Absent: the first
   * errors[].messageCode of the error object (search-ads v5).
   */
  errorCodeField?: string;
}

export interface EndpointSpec {
  provider: ProviderId;
  /**
   * Path after {base_url}/v1/<provider>, byte-exact: the allowlist matches it without normalisation. A
   * `{name}` segment is a typed id segment: digits only.
   */
  path: string;
  /** GET, or POST only for reads the platform defines as POST (searches, report queries). */
  method: 'GET' | 'POST';
  title: string;
  summary: string;
  /** Words and phrases a person would use when asking for this data; feeds find_endpoint's ranking. */
  keywords: readonly string[];
  params: readonly ParameterSpec[];
  body?: BodySpec;
  paging?: PagingSpec;
  /** What the answer contains, for assistants. */
  returns: string;
}

/**
 * One API version of a provider, found by its path prefix. A provider can serve a retiring version beside its
 * successor; answers of a deprecated version carry Deprecation (RFC 9745) and Sunset (RFC 8594) headers. A version
 * that speaks differently from the provider's defaults says so here (envelope, upstreamPrefix, ownedHeaders), so a
 * successor is added beside its predecessor without touching it; readers go through envelopeOf, upstreamPathOf and
 * ownedHeadersOf, which take the endpoint's version first and the provider's value otherwise.
 */
export interface ApiVersionSpec {
  name: string;
  /** Paths of this version start with it, e.g. /api/v5/. */
  pathPrefix: string;
  /** ISO date from which the gateway marks the version deprecated. */
  deprecatedSince?: string;
  /** ISO date the platform retires the version. */
  sunset?: string;
  /** Where the migration is documented (an absolute URL or a path of the docs). */
  migrationDoc?: string;
  /** One sentence for assistants and the docs. */
  notice?: string;
  /** What a caller does about the retirement, step by step (the gateway's deprecation page lists them). */
  migration?: readonly string[];
  /** How this version's answers are read; absent: the provider's envelope. */
  envelope?: EnvelopeSpec;
  /** Prepended to this version's gateway paths to make the platform path; absent: the provider's. */
  upstreamPrefix?: string;
  /** Headers the service sets on this version's calls (for the docs); absent: the provider's. */
  ownedHeaders?: readonly string[];
}

export interface ProviderSpec {
  id: ProviderId;
  /** A few words for people (the portal's buttons and tables). */
  label: string;
  title: string;
  /** What one connection of this provider is (docs/product.md section 1). */
  connectionUnit: string;
  /** How the platform's answers are read; an API version may have its own (read it with envelopeOf). */
  envelope: EnvelopeSpec;
  /**
   * Prepended to the gateway path to make the platform path (video-ads: /open_api); often empty. An API version
   * may have its own (upstreamPathOf).
   */
  upstreamPrefix: string;
  /**
   * Query parameters and JSON body fields the service sets for this provider: every one of them is dropped
   * from the caller's request, in any spelling or case, and never forwarded.
   */
  ownedParams: readonly string[];
  /**
   * Headers the service sets (for the docs; the proxy never forwards a caller header). An API version may have its
   * own (ownedHeadersOf).
   */
  ownedHeaders: readonly string[];
  /** The endpoint most questions start from (the accounts or shops of the connection). */
  startingPoint: string;
  /**
   * The provider's API versions when the platform runs more than one (or retires one). Every endpoint then belongs
   * to exactly one of them (its path starts with the version's pathPrefix).
   */
  apiVersions?: readonly ApiVersionSpec[];
  /** How a connection of this provider is granted, in one sentence (portal, docs). */
  grant: string;
  endpoints: readonly EndpointSpec[];
}
