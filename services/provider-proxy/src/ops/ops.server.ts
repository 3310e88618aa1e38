import { createServer, type Server } from 'node:http';
import type { Registry } from 'prom-client';
import { metricsHandler } from '@gateway/telemetry';

/**
 * The probe and scrape listener, apart from gRPC so that kubelets and Prometheus need no gRPC client:
 * /healthz (the process answers), /readyz (it takes traffic), /metrics (Prometheus text).
 */
export function createOpsServer(options: { registry: Registry; isReady: () => boolean }): Server {
  const metrics = metricsHandler(options.registry);
  return createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD' }).end();
      return;
    }
    switch (path) {
      case '/healthz':
        res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' }).end('ok\n');
        return;
      case '/readyz': {
        const ready = options.isReady();
        res.writeHead(ready ? 200 : 503, { 'content-type': 'text/plain; charset=utf-8' });
        res.end(ready ? 'ready\n' : 'not ready\n');
        return;
      }
      case '/metrics':
        metrics(req, res);
        return;
      default:
        res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('not found\n');
    }
  });
}
