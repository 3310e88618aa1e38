import { randomBytes, randomInt } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/** Secrets of a local stack, made once per checkout and kept in .local/ (git-ignored, mode 0600). */
export interface LocalSecrets {
  /** CREDENTIALS_ENCRYPTION_KEYS for provider-proxy and the seed (AES-256-GCM keyring). */
  credentialsKeys: string;
  credentialsActiveKeyId: string;
  /** The gateway's own video-ads app at the platform sandbox. */
  videoAdsAppId: string;
  videoAdsAppSecret: string;
  /** The gateway's own video-shop app at the platform sandbox (app_key: lowercase letters and digits). */
  videoShopAppKey: string;
  videoShopAppSecret: string;
  /**
   * The gateway's three marketplace partner apps (seller, ads, affiliate) at the platform sandbox: partner ids are
   * digits, partner keys lowercase hex (the sandbox's formats); the sandbox gets the same values.
   */
  marketplacePartnerId: string;
  marketplacePartnerKey: string;
  marketplaceAdsPartnerId: string;
  marketplaceAdsPartnerKey: string;
  marketplaceAffiliatePartnerId: string;
  marketplaceAffiliatePartnerKey: string;
}

/** Reads .local/secrets.json; values a checkout's older file lacks (a new provider's app) are made and added. */
export function loadOrCreateSecrets(path: string): LocalSecrets {
  const stored = existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as Partial<LocalSecrets>) : {};
  // Three distinct partner ids in a row (the sandbox tells the apps apart by partner id).
  const partnerBase = 3_000_000 + randomInt(0, 300_000) * 3;
  const secrets: LocalSecrets = {
    credentialsKeys: stored.credentialsKeys ?? `local1:${randomBytes(32).toString('base64')}`,
    credentialsActiveKeyId: stored.credentialsActiveKeyId ?? 'local1',
    videoAdsAppId: stored.videoAdsAppId ?? `7${randomBytes(8).readBigUInt64BE().toString().slice(0, 18)}`,
    videoAdsAppSecret: stored.videoAdsAppSecret ?? randomBytes(20).toString('hex'),
    videoShopAppKey: stored.videoShopAppKey ?? `6local${randomBytes(4).toString('hex')}`,
    videoShopAppSecret: stored.videoShopAppSecret ?? randomBytes(20).toString('hex'),
    marketplacePartnerId: stored.marketplacePartnerId ?? String(partnerBase),
    marketplacePartnerKey: stored.marketplacePartnerKey ?? randomBytes(32).toString('hex'),
    marketplaceAdsPartnerId: stored.marketplaceAdsPartnerId ?? String(partnerBase + 1),
    marketplaceAdsPartnerKey: stored.marketplaceAdsPartnerKey ?? randomBytes(32).toString('hex'),
    marketplaceAffiliatePartnerId: stored.marketplaceAffiliatePartnerId ?? String(partnerBase + 2),
    marketplaceAffiliatePartnerKey: stored.marketplaceAffiliatePartnerKey ?? randomBytes(32).toString('hex'),
  };
  if (Object.keys(secrets).some((name) => stored[name as keyof LocalSecrets] === undefined)) {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, JSON.stringify(secrets, null, 2), { mode: 0o600 });
  }
  return secrets;
}
