// The provider ids of spec section 1 have one home, the catalogue; keys, plans and connections use the same list.
export { PROVIDER_IDS, isProviderId } from '@gateway/catalogue';
export type { ProviderId } from '@gateway/catalogue';
