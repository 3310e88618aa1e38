import { ConfigError, loadConfig } from '@gateway/config';
import { ConfigSchema } from './config';

const BASE = { PROVIDER_PROXY_ADDRESS: '127.0.0.1:50051' };
const KEY = `dg_live_${'a'.repeat(40)}`;

describe('mcp-server configuration', () => {
  it('has the documented defaults', () => {
    const config = loadConfig('mcp-server', ConfigSchema, { ...BASE, NODE_ENV: 'development' });
    expect(config).toMatchObject({
      PORT: 8081,
      MCP_PATH: '/mcp',
      MAX_RESULT_CHARS: 100_000,
      OAUTH_SCOPES: ['data:read'],
      LLM_TIMEOUT_MS: 8_000,
      ALLOWED_HOSTS: [],
    });
    expect(config.LLM_BASE_URL).toBeUndefined();
  });

  it('accepts MCP_ANONYMOUS_KEY only when NODE_ENV=test', () => {
    expect(
      loadConfig('mcp-server', ConfigSchema, { ...BASE, NODE_ENV: 'test', MCP_ANONYMOUS_KEY: KEY }).MCP_ANONYMOUS_KEY,
    ).toBe(KEY);
    for (const NODE_ENV of ['development', 'production']) {
      expect(() =>
        loadConfig('mcp-server', ConfigSchema, {
          ...BASE,
          NODE_ENV,
          PUBLIC_URL: 'https://x.test/mcp',
          MCP_ANONYMOUS_KEY: KEY,
        }),
      ).toThrow(/MCP_ANONYMOUS_KEY: is only accepted when NODE_ENV=test/);
    }
  });

  it('needs PUBLIC_URL in production and LLM_MODEL with LLM_BASE_URL, and never echoes values', () => {
    expect(() => loadConfig('mcp-server', ConfigSchema, { ...BASE, NODE_ENV: 'production' })).toThrow(/PUBLIC_URL/);
    let error: unknown;
    try {
      loadConfig('mcp-server', ConfigSchema, {
        ...BASE,
        LLM_BASE_URL: 'https://llm.test/v1',
        LLM_API_KEY: 'sk-very-secret',
        NODE_ENV: 'test',
      });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect(String(error)).toMatch(/LLM_MODEL/);
    expect(String(error)).not.toContain('sk-very-secret');
  });
});
