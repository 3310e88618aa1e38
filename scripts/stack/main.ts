import { startStack } from './stack';

/** `npm start`: the whole gateway on this machine, until Ctrl-C. */
async function main(): Promise<void> {
  const log = (message: string) => console.log(`[stack] ${message}`);
  const stack = await startStack({
    log,
    ports: process.env.STACK_PORTS === 'ephemeral' ? 'ephemeral' : 'fixed',
    ...(process.env.STACK_LOCAL_DIR ? { localDir: process.env.STACK_LOCAL_DIR } : {}),
  });
  const { urls, demo } = stack.info;
  const accountOf = (provider: string) => demo.accounts.find((account) => account.provider === provider)?.account_id;
  const connections = demo.accounts
    .map(
      (account, index) =>
        `${index === 0 ? '  Connections    ' : '                 '}${account.provider.padEnd(23)}${account.account_id}`,
    )
    .join('\n');
  console.log(`
Data gateway is running.

  REST gateway   ${urls.rest}
  MCP endpoint   ${urls.mcp}   (Authorization: Bearer <key>, or OAuth sign-in)
  OAuth server   ${urls.oauth}   (issuer; assistants sign in with a portal account)
  Portal         ${urls.portal}
  Sandbox        ${urls.sandbox}   (the platforms' stand-in)
  Metrics        ${urls.edge_metrics}  ${urls.mcp_metrics}  ${urls.quota_actor_metrics}  ${urls.provider_proxy_metrics}

  Demo key       ${demo.api_key}   (${demo.accounts.length} connections: send X-Account-Id with one of them)
${connections}

  Try:  curl -H 'X-API-Key: ${demo.api_key}' ${urls.rest}/v1/me
        curl -H 'X-API-Key: ${demo.api_key}' -H 'X-Account-Id: ${accountOf('video-ads')}' \\
          '${urls.rest}/v1/video-ads/v1.3/oauth2/advertiser/get/'
        curl -H 'X-API-Key: ${demo.api_key}' -H 'X-Account-Id: ${accountOf('video-shop')}' \\
          '${urls.rest}/v1/video-shop/authorization/202309/shops'
        curl -H 'X-API-Key: ${demo.api_key}' -H 'X-Account-Id: ${accountOf('marketplace')}' \\
          '${urls.rest}/v1/marketplace/api/v2/shop/get_shop_info'
        curl -i -H 'X-API-Key: ${demo.api_key}' -H 'X-Account-Id: ${accountOf('search-ads')}' \\
          '${urls.rest}/v1/search-ads/api/v5/campaigns?limit=5'   # v5 retires: -i shows its Sunset header
        curl -H 'Authorization: Bearer ${demo.api_key}' -H 'Content-Type: application/json' \\
          -d '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"check_quota"}}' ${urls.mcp}

  Logs in ${stack.localDir}/logs/, addresses in ${stack.localDir}/stack.json. Ctrl-C stops everything.
`);
  let stopping = false;
  const shutdown = () => {
    if (stopping) return;
    stopping = true;
    log('stopping');
    stack.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error(error);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', shutdown);
  process.on('SIGTERM', shutdown);
}

main().catch((error: unknown) => {
  console.error(`[stack] could not start: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
