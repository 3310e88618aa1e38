import { once } from 'node:events';
import { createServer } from 'node:http';
import { createLogger } from '@gateway/telemetry';
import { TurnBatchedResponse } from '../http/turn-batched-response';
import { createGatewayHandler, type GatewayDeps } from './gateway.handler';

export interface ServedGateway {
  port: number;
  close(): Promise<void>;
}

/**
 * The gateway handler on a loopback port, served as edge-auth serves it (answers ended at the end of the turn), with
 * the given decisions and caller and the defaults of the rest.
 */
export async function serveGatewayHandler(
  deps: Pick<GatewayDeps, 'decisions' | 'caller'> & Partial<GatewayDeps>,
): Promise<ServedGateway> {
  const handler = createGatewayHandler({
    clientAddress: () => '127.0.0.1',
    upstreamTimeoutMs: 5_000,
    gzipMinBytes: 1024,
    logger: createLogger('test', 'silent'),
    ...deps,
  });
  const server = createServer({ ServerResponse: TurnBatchedResponse }, handler);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    port: (server.address() as { port: number }).port,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
