export { openStore, ensureStoreIndexes } from './open-store';
export type { Store, OpenStoreOptions } from './open-store';

export { PROVIDER_IDS, isProviderId } from './providers';
export type { ProviderId } from './providers';

export {
  API_KEY_PREFIX,
  ACCOUNT_ID_PREFIX,
  CUSTOMER_ID_PREFIX,
  randomBase62,
  newApiKeySecret,
  newKeyId,
  newAccountId,
  newCustomerId,
  hashApiKey,
  isWellFormedApiKey,
  isWellFormedKeyId,
  isWellFormedAccountId,
} from './ids';

export { CredentialCipher, CredentialCipherError } from './credential-cipher';
export type { SealedCredentials } from './credential-cipher';
export { PlatformCredentialsSchema, parsePlatformCredentials } from './platform-credentials';
export type { PlatformCredentials } from './platform-credentials';

export { normaliseCidr, parseIpAllowlist, compileIpAllowlist, IP_ALLOWLIST_MAX_ENTRIES } from './ip-allowlist';
export { createClientAddressResolver, normaliseAddress } from './client-address';
export type { IpAllowlistParse } from './ip-allowlist';

export { StoreError } from './store-error';
export type { StoreErrorCode } from './store-error';

export { PLAN_NAMES, OVERAGE_MODES, MCP_TIERS } from './plan.model';
export type { Plan, PlanName, OverageMode, McpTier } from './plan.model';
export { DEFAULT_PLANS } from './plan.defaults';
export { PlanRepository, isPlanName } from './plan.repository';

export { CustomerRepository } from './customer.repository';
export type { CustomerRecord, CreateCustomerInput } from './customer.repository';

export { API_KEY_STATUSES, API_KEY_SOURCES } from './api-key.model';
export type { ApiKeyStatus, ApiKeySource, ApiKeyOAuthGrant } from './api-key.model';
export { ApiKeyRepository } from './api-key.repository';
export type {
  ApiKeyChanges,
  ApiKeyRecord,
  ApiKeySummary,
  CreateApiKeyInput,
  CreatedApiKey,
  RotatedApiKey,
} from './api-key.repository';

export { CONNECTION_STATUSES } from './connection.model';
export type { ConnectionStatus } from './connection.model';
export { ConnectionRepository } from './connection.repository';
export type { ConnectionRecord, CreateConnectionInput, CredentialsWrite } from './connection.repository';

export { monthlyUsageId } from './monthly-usage.model';
export { MonthlyUsageRepository, usageMonth, usageDay } from './monthly-usage.repository';
export type { MonthlyUsageRecord, CustomerMonthUsage, KeyMonthShare } from './monthly-usage.repository';

export { KeyDecisionLoader } from './key-decision.loader';
export type { KeyDecisionRecord, KeyDecisionConnection } from './key-decision.loader';

export { PortalSessionRepository, type PortalSession, type PendingGrant } from './portal-session.repository';

export { hashPassword, verifyPassword, verifyAgainstDummy, DEFAULT_SCRYPT } from './password.hasher';
export type { ScryptParams } from './password.hasher';
export { SignInThrottle } from './sign-in.throttle';

export { OAUTH_TOKEN_KINDS } from './oauth-grant.model';
export type { OAuthTokenKind } from './oauth-grant.model';
export {
  OAuthGrantRepository,
  OAUTH_CODE_PREFIX,
  OAUTH_ACCESS_TOKEN_PREFIX,
  OAUTH_REFRESH_TOKEN_PREFIX,
  hashOAuthSecret,
  newOAuthFamilyId,
} from './oauth-grant.repository';
export type {
  OAuthGrant,
  OAuthCodeGrant,
  OAuthTokenRecord,
  IssuedOAuthTokens,
  TakenCode,
  RotatedRefresh,
} from './oauth-grant.repository';
