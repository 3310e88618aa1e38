import { ConfigSchema } from './config';

const BASE = { MONGODB_URI: 'mongodb://127.0.0.1/gateway', NODE_ENV: 'development' };

function issues(env: Record<string, string>): string[] {
  const result = ConfigSchema.safeParse(env);
  return result.success ? [] : result.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
}

describe('oauth-server config', () => {
  it('has working defaults outside production', () => {
    const config = ConfigSchema.parse(BASE);
    expect(config.CHAT_ASSISTANT_CLIENT_ID).toBe('chat-assistant');
    expect(config.SECOND_ASSISTANT_REDIRECT_PREFIX).toBe('https://second-assistant.example/connector/oauth/');
    expect(config.OAUTH_SCOPES).toEqual(['data:read']);
  });

  it('requires the issuer over https, the resource and signing keys in production', () => {
    expect(issues({ ...BASE, NODE_ENV: 'production' })).toEqual([
      'ISSUER: is required and must be https in production',
      'MCP_RESOURCE_URL: is required in production',
      'OAUTH_SIGNING_KEYS: is required in production',
    ]);
    expect(
      issues({
        ...BASE,
        NODE_ENV: 'production',
        ISSUER: 'https://auth.example.com',
        MCP_RESOURCE_URL: 'https://mcp.example.com/mcp',
        OAUTH_SIGNING_KEYS: 'a-signing-key-of-32-characters-xx',
      }),
    ).toEqual([]);
  });

  it('refuses redirect configuration a match could escape, and equal client ids', () => {
    expect(issues({ ...BASE, SECOND_ASSISTANT_REDIRECT_PREFIX: 'https://s.example.com/cb' })).toEqual([
      'SECOND_ASSISTANT_REDIRECT_PREFIX: must end with "/"',
    ]);
    expect(issues({ ...BASE, CHAT_ASSISTANT_REDIRECT_URIS: 'http://chat.example.com/cb' })).toEqual([
      'CHAT_ASSISTANT_REDIRECT_URIS.0: must be https',
    ]);
    expect(issues({ ...BASE, SECOND_ASSISTANT_CLIENT_ID: 'chat-assistant' })).toEqual([
      'SECOND_ASSISTANT_CLIENT_ID: must differ from the first',
    ]);
    expect(issues({ ...BASE, ISSUER: 'https://auth.example.com/' })).toEqual(['ISSUER: must not end with "/"']);
  });
});
