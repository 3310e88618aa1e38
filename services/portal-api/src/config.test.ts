import { ConfigError } from '@gateway/config';
import { loadPortalConfig } from './config';

const ENV = {
  NODE_ENV: 'test',
  MONGODB_URI: 'mongodb://127.0.0.1:27017/portal',
  CREDENTIALS_ENCRYPTION_KEYS: 'k1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=',
  CREDENTIALS_ACTIVE_KEY_ID: 'k1',
  VIDEO_ADS_BASE_URL: 'http://127.0.0.1:9000',
  VIDEO_ADS_APP_ID: '7000',
  VIDEO_ADS_APP_SECRET: 'ads-secret',
};

function problemsOf(env: Record<string, string | undefined>): string[] {
  try {
    loadPortalConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error('the config was accepted');
}

describe('loadPortalConfig', () => {
  it("reads the portal's own variables and builds the configured providers from theirs", () => {
    const config = loadPortalConfig({ ...ENV, MARKETPLACE_PARTNER_ID: '2101001', MARKETPLACE_PARTNER_KEY: 'k' });
    expect(config.PORT).toBe(8082);
    expect(config.grants.map((grant) => grant.provider)).toEqual(['video-ads', 'marketplace']);
    expect(config.keyPairFlows.map((flow) => flow.provider)).toEqual(['search-ads']);
    expect(config).not.toHaveProperty('VIDEO_ADS_APP_SECRET');
  });

  it("fails start with one message naming every bad variable, the portal's and the providers', never a value", () => {
    const problems = problemsOf({
      ...ENV,
      MONGODB_URI: undefined,
      VIDEO_ADS_APP_ID: undefined,
      VIDEO_SHOP_API_URL: 'ftp://secret-host',
      MARKETPLACE_AFFILIATE_PARTNER_ID: '21x',
      SEARCH_ADS_AUTH_URL: 'nope',
      SEARCH_ADS_API_USERS_URL: 'nope',
      SEARCH_ADS_KEY_TTL_MS: '-5',
    });
    expect(problems.map((problem) => problem.split(':')[0])).toEqual([
      'MONGODB_URI',
      'VIDEO_ADS_APP_ID',
      'VIDEO_SHOP_API_URL',
      'MARKETPLACE_AFFILIATE_PARTNER_ID',
      'SEARCH_ADS_AUTH_URL',
      'SEARCH_ADS_API_USERS_URL',
      'SEARCH_ADS_KEY_TTL_MS',
    ]);
    expect(problems.join('\n')).not.toMatch(/secret-host|21x|nope/);
  });

  it('requires https PUBLIC_URL in production, as before', () => {
    expect(problemsOf({ ...ENV, NODE_ENV: 'production', PUBLIC_URL: 'http://portal.test' })).toEqual([
      'PUBLIC_URL: must be https in production',
    ]);
  });
});
