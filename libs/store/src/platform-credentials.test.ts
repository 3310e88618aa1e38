import { parsePlatformCredentials } from './platform-credentials';

describe('platform credentials', () => {
  it('accepts an access token with optional refresh token, expiries and scope', () => {
    const value = {
      access_token: 'a',
      refresh_token: 'r',
      access_token_expires_at: '2030-01-01T00:00:00Z',
      refresh_token_expires_at: '2030-02-01T00:00:00.000+02:00',
      scope: 'read',
    };
    expect(parsePlatformCredentials(value)).toEqual({ ok: true, credentials: value });
  });

  it('names invalid fields without echoing their values', () => {
    const result = parsePlatformCredentials({ access_token: '', access_token_expires_at: 'tomorrow-secret' });
    expect(result).toEqual({ ok: false, fields: ['access_token', 'access_token_expires_at'] });
    expect(JSON.stringify(result)).not.toContain('tomorrow-secret');
  });

  it('refuses unknown fields rather than dropping them silently', () => {
    expect(parsePlatformCredentials({ access_token: 'a', app_secret: 'x' })).toEqual({
      ok: false,
      fields: ['unknown field'],
    });
  });
});
