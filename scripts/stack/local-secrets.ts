import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/** Secrets of a local stack, made once per checkout and kept in .local/ (git-ignored, mode 0600). */
export interface LocalSecrets {
  /** CREDENTIALS_ENCRYPTION_KEYS for provider-proxy and the seed (AES-256-GCM keyring). */
  credentialsKeys: string;
  credentialsActiveKeyId: string;
  /** The gateway's own app at the platform sandbox. */
  videoAdsAppId: string;
  videoAdsAppSecret: string;
}

export function loadOrCreateSecrets(path: string): LocalSecrets {
  if (existsSync(path)) return JSON.parse(readFileSync(path, 'utf8')) as LocalSecrets;
  const secrets: LocalSecrets = {
    credentialsKeys: `local1:${randomBytes(32).toString('base64')}`,
    credentialsActiveKeyId: 'local1',
    videoAdsAppId: `7${randomBytes(8).readBigUInt64BE().toString().slice(0, 18)}`,
    videoAdsAppSecret: randomBytes(20).toString('hex'),
  };
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, JSON.stringify(secrets, null, 2), { mode: 0o600 });
  return secrets;
}
